/**
 * The conversation loop of `nudge claude run`: read a prompt, handle slash commands, run the
 * turn, show its end line. Ctrl-C during a turn interrupts the turn; at the prompt it ends the
 * session, which always leaves a complete bundle.
 */
import { UserError } from "../errors.js";
import type { Turn } from "../bundle/manifest-schema.js";
import { totalCost } from "../bundle/session-summary.js";
import type { LiveSession } from "../recorder/live-session.js";
import type { StreamEvent } from "../claude/stream-events.js";
import type { EventRenderer } from "./event-renderer.js";
import { formatCost } from "./format.js";
import type { PromptSource } from "./prompt-input.js";
import type { Style } from "./style.js";

export interface SlashHooks {
  /** /rewind <n>: returns a line to show. May switch `session.live` to a new recording. */
  rewind: (turn: number) => Promise<string>;
  /** /fork [n]: returns a line to show. May switch `session.live` to a new recording. */
  fork: (turn: number | undefined) => Promise<string>;
}

export interface RunLoopOptions {
  /** The live session; /rewind and /fork replace it with the fork they continue in. */
  session: { live: LiveSession; renderer: EventRenderer };
  prompts: PromptSource;
  style: Style;
  /** Status lines (turn ends, notices) go here; stdout keeps claude's words. */
  say: (line: string) => void;
  firstPrompt?: string;
  slash: SlashHooks;
}

const HELP = [
  "/session          this session's ids, bundle, turns and cost",
  "/rewind <n>       put code and conversation back to turn n",
  "/fork [n]         fork this session at turn n (default: the last)",
  "/help             this list",
  "/exit             end the session (also Ctrl-C or Ctrl-D at the prompt)",
];

export async function runLoop(o: RunLoopOptions): Promise<void> {
  const { style, say } = o;
  let failure: TurnFailure = { text: "", status: null };
  const watched = new WeakSet<object>();
  const watch = (live: LiveSession) => {
    if (watched.has(live.recorder)) return;
    watched.add(live.recorder);
    live.recorder.listen({
      event: (event: StreamEvent) => {
        if (event.type === "result" && event.is_error && failure.status === null) {
          failure = { text: event.result ?? (event.errors ?? []).join("; "), status: event.api_error_status ?? null };
        }
        // claude retries a 401 ten times over ~3 minutes; a bad key will not get better, so stop now.
        if (event.type === "system" && event.subtype === "api_retry" && (event.error_status === 401 || event.error_status === 403)) {
          failure = { text: String(event.error ?? "authentication failed"), status: event.error_status };
          live.interrupt();
        }
      },
    });
  };
  const onSigint = () => {
    const state = o.session.live.interrupt();
    if (state === "interrupting") say(style.yellow("⏸ interrupting the turn… (Ctrl-C again stops claude)"));
    else if (state === "killed") say(style.red("■ stopping claude; the turn is kept as incomplete"));
    else o.prompts.close();
  };
  // kill, or the terminal closing: stop the turn in flight, take no more prompts, and end the
  // session normally, so the bundle is complete rather than crashed.
  const onTerminate = (signal: NodeJS.Signals) => {
    say(style.yellow(`■ ${signal}: ending the session`));
    o.session.live.interrupt();
    o.prompts.close();
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onTerminate);
  process.on("SIGHUP", onTerminate);
  try {
    let prompt: string | null | undefined = o.firstPrompt;
    for (;;) {
      if (prompt === undefined) prompt = await o.prompts.next();
      if (prompt === null) return;
      const text: string = prompt;
      prompt = undefined;
      if (text.trim() === "") continue; // Enter on an empty prompt line: ask again
      if (isSlashCommand(text)) {
        if ((await slashSafely(text.trim(), o)) === "exit") return;
        continue;
      }
      failure = { text: "", status: null };
      const live = o.session.live;
      watch(live);
      const turn = await live.runTurn(text);
      o.session.renderer.turnEnd(turn);
      failOnFatal(turn, failure.text ? failure : { text: live.stderrText, status: null });
    }
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onTerminate);
    process.off("SIGHUP", onTerminate);
  }
}

const SLASH_COMMANDS = new Set(["/exit", "/quit", "/q", "/help", "/h", "/?", "/session", "/rewind", "/fork"]);

/** nudge's own commands only: any other line, "/src/app.ts crashes" included, is a prompt for claude. */
function isSlashCommand(line: string): boolean {
  return SLASH_COMMANDS.has(line.trim().split(/\s+/, 1)[0]!);
}

/** A slash command that fails (a bad turn number, a file in the way) is reported; the session goes on. */
async function slashSafely(line: string, o: RunLoopOptions): Promise<"exit" | "handled"> {
  try {
    return await slash(line, o);
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    o.say(o.style.red(`error: ${error.message}`));
    if (error.hint) o.say(o.style.dim(`hint: ${error.hint}`));
    return "handled";
  }
}

interface TurnFailure {
  text: string;
  status: number | null;
}

async function slash(line: string, o: RunLoopOptions): Promise<"exit" | "handled"> {
  // Only the commands in SLASH_COMMANDS get here (isSlashCommand); anything else went to claude.
  const [command, arg] = line.split(/\s+/, 2);
  switch (command) {
    case "/exit":
    case "/quit":
    case "/q":
      return "exit";
    case "/help":
    case "/h":
    case "/?":
      for (const l of HELP) o.say(l);
      return "handled";
    case "/session":
      for (const l of sessionLines(o.session.live)) o.say(l);
      return "handled";
    case "/rewind":
      if (!arg || !/^\d+$/.test(arg)) throw new UserError("usage: /rewind <turn>", "type /session to see the turns");
      o.say(await o.slash.rewind(Number(arg)));
      return "handled";
    case "/fork":
    default: // isSlashCommand lets no other command through
      o.say(await o.slash.fork(arg && /^\d+$/.test(arg) ? Number(arg) : undefined));
      return "handled";
  }
}

function sessionLines(live: LiveSession): string[] {
  const m = live.recorder.manifest;
  return [
    `session        ${m.id}${m.parent ? ` (fork of ${m.parent.id} at turn ${m.parent.turn})` : ""}`,
    `claude session ${live.recorder.claudeSessionId ?? "(none yet)"}`,
    `bundle         ${live.recorder.files.dir}`,
    `turns          ${m.turns.length - 1}`,
    `cost           ${formatCost(totalCost(m.turns))}`,
  ];
}

/** Errors no further prompt can fix: stop with a hint (the bundle is complete either way). */
function failOnFatal(turn: Turn, failure: TurnFailure): void {
  if (!turn.result?.isError && turn.status !== "incomplete") return;
  const text = failure.text;
  const firstLine = text.split("\n")[0]!.slice(0, 200);
  if (/No conversation found/i.test(text)) {
    throw new UserError(
      `claude could not find the conversation to resume: ${firstLine}`,
      "its transcript is missing from this machine's claude config; start a new session with: nudge claude run",
    );
  }
  if (failure.status === 401 || failure.status === 403 || /authentication_failed|invalid api key|\/login/i.test(text)) {
    throw new UserError(
      `claude could not authenticate with the API (${firstLine})`,
      "set ANTHROPIC_API_KEY or run `claude /login`, then continue with: nudge claude run -c",
    );
  }
  if (failure.status === 429 || /rate.?limit/i.test(text)) {
    throw new UserError(`the API is rate limiting claude (${firstLine})`, "wait a minute, then continue with: nudge claude run -c");
  }
  if (turn.status === "incomplete" && turn.lines.from === turn.lines.to) {
    throw new UserError(
      `claude exited without answering${text ? `: ${text.split("\n").slice(-3).join(" ")}` : ""}`,
      "check the arguments passed to claude (after --) and that `claude -p hello` works on its own",
    );
  }
}
