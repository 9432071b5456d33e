/**
 * `nudge claude run` on the terminal: the terminal's side of a live session (src/session/).
 * On a terminal: the prompt line, claude's questions, the status line, all drawn through one
 * screen (terminal-ui.ts), Ctrl-C as a key. Otherwise: one prompt per stdin line, nobody to ask.
 * Claude's words go to stdout, nudge's notices to stderr; signals become the session's interrupt
 * and stop. The session itself decides everything else.
 */
import path from "node:path";
import type { Store } from "../store/store.js";
import { totalCost } from "../store/summary.js";
import type { ClaudeFlags } from "../claude/claude-process.js";
import type { Sandbox } from "../claude/sandbox.js";
import { changedProjectConfig } from "../claude/sandbox/project-config.js";
import { formatCost } from "../base/format.js";
import type { RuleSet } from "../rules/parse-rules.js";
import type { Conversation } from "../live/conversation.js";
import type { Frontend, PromptSource } from "../live/frontend.js";
import type { LoopHooks } from "../loop/loop-hooks.js";
import type { SessionChoice } from "../live/open-session.js";
import { rulesGuard } from "../live/rules-guard.js";
import { BackgroundIndexer } from "../search/background-index.js";
import { runSession, type RunSessionInput } from "../live/run-session.js";
import { EventRenderer } from "./event-renderer.js";
import { shellQuote } from "../base/shell-quote.js";
import { linePrompts } from "./prompt-input.js";
import { colorEnabled, makeStyle } from "./style.js";
import { InterruptedResults } from "./interrupted-results.js";
import { RetryCause } from "./retry-cause.js";
import { openTerminalUi, type TerminalUi } from "./terminal-ui.js";
import { openPromptHistory } from "../store/prompt-history.js";
import { modeLabel, nextMode } from "./permission-modes.js";
import { stdoutFlushed, writeErr, writeOut } from "./output.js";

/** The prompt's keys, for /help (docs/guide/recording.md's key table has them all). */
const TERMINAL_KEYS = [
  "keys: Enter send (while claude works: queue) · Alt-Enter or \\ at the end: a new line",
  "      ↑/↓ earlier prompts · Ctrl-R search them · Ctrl-O show a paste or a diff whole",
  "      Shift-Tab next permission mode · Esc or Ctrl-C interrupt the turn (at a question: no)",
  "      Ctrl-C clears the line; on an empty line, twice, or Ctrl-D: end the session · Ctrl-Z suspend",
];

/** How long a reader of nudge's piped stdout (tee) gets to pass claude's last words on before the end line. */
const PIPE_GRACE_MS = 30;

export interface LiveRunInput {
  store: Store;
  cwd: string;
  bin: string;
  claudeConfigDir: string;
  choice: SessionChoice;
  flags: Omit<ClaudeFlags, "resume">;
  verbose: boolean;
  force: boolean;
  firstPrompt?: string;
  /** The project's rules (.nudge/rules.yaml), loaded before anything starts. */
  rules: RuleSet;
  afterTurn?: RunSessionInput["afterTurn"];
  /** An agentic loop (`nudge claude loop`) drives this run. */
  loop?: LoopHooks;
  /** Run claude under bubblewrap (`claude loop --sandbox`). */
  sandbox?: Sandbox | null;
}

export interface LiveRunOutcome {
  id: string;
  discarded: boolean;
  /** The terminal went away: the caller exits as a hang-up (129) once everything is written. */
  hungUp: boolean;
  /** Without a terminal: the turns that ended in an error (an API error, --max-turns), for the exit status. */
  errorTurns: number[];
  /** Without a terminal: how many prompts were not sent (an image they named could not go), for the exit status. */
  refusedPrompts: number;
}

export async function liveRun(input: LiveRunInput): Promise<LiveRunOutcome> {
  const style = makeStyle(colorEnabled(process.stdout));
  const errStyle = makeStyle(colorEnabled(process.stderr));
  let conversation: Conversation | null = null;
  // Once only: a hang-up arrives twice (SIGHUP, and the keyboard's SIGHUP or read error), and a
  // second stop would be a second interrupt, which stops claude and cuts the turn short.
  let stopped = false;
  let hungUp = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    if (conversation) conversation.stop();
    else prompts.close();
  };
  const ui: TerminalUi | null =
    process.stdin.isTTY === true
      ? openTerminalUi({
          history: await openPromptHistory(input.store),
          onCycleMode: () => cycleMode(),
          onAcceptEdits: () => {
            // claude takes the mode from the plan's answer; nudge remembers it for a claude started later.
            mode = "acceptEdits";
            conversation?.notePermissionMode(mode);
            ui?.setMode(modeLabel(mode));
          },
          input: process.stdin,
          output: process.stdout,
          errorOutput: process.stderr,
          style,
          cwd: input.cwd,
          onInterrupt: () => interrupt(),
          onHangUp: () => {
            hungUp = true;
            stop();
          },
        })
      : null;
  // Claude's line left unfinished (streamed text): a notice starts below it, and the renderer,
  // which would end that line itself, does not add a blank one.
  let midLine = false;
  let lineEndedByNotice = false;
  const say = (line: string) => {
    if (!ui) return void writeErr(`${line}\n`);
    if (midLine) {
      ui.write("\n");
      midLine = false;
      lineEndedByNotice = true;
    }
    ui.say(line);
  };
  const renderer = new EventRenderer({
    style,
    write: (text) => {
      if (!ui) return void writeOut(text);
      const t = lineEndedByNotice && text.startsWith("\n") ? text.slice(1) : text;
      lineEndedByNotice = false;
      if (!t) return;
      midLine = !t.endsWith("\n");
      ui.write(t);
    },
    // stdout is claude's words alone (`> answer.txt`); tool calls, decisions and turn lines are notices.
    say: (line) => say(line),
    // A line that is not JSON: the recorder's own warning says so, with its line number.
    notice: () => undefined,
    verbose: input.verbose,
    showPrompts: false,
    cwd: input.cwd,
    markdown: { columns: () => ui?.screen.columns ?? (process.stdout.columns || 80) },
  });
  const prompts: PromptSource = ui ? ui.prompts : linePrompts(process.stdin);
  const interrupted = new InterruptedResults();
  const retryCause = new RetryCause({ env: process.env, warn: (text) => frontend.warn(text) });
  const frontend: Frontend = {
    prompts,
    asker: ui?.asker ?? null,
    endsWith: "Ctrl-D",
    keys: ui ? TERMINAL_KEYS : undefined,
    render: (event) => {
      const shown = interrupted.shown(event);
      if (shown) renderer.render(shown);
      ui?.observe(event);
      retryCause.observe(event);
    },
    // claude is done: the status line goes with the end line, though the turn's code is still being captured.
    turnFinished: (turn) => {
      ui?.status.stop();
      renderer.turnFinished(turn);
    },
    turnSaved: (turn) => renderer.turnChanges(turn),
    // stdout through a pipe (`| tee log`) reaches the terminal a moment after stderr: the end line,
    // written the instant claude's result is in, would otherwise cut into claude's last words.
    outputSettled:
      !process.stdout.isTTY && process.stderr.isTTY
        ? async () => {
            await stdoutFlushed();
            await new Promise((resolve) => setTimeout(resolve, PIPE_GRACE_MS));
          }
        : undefined,
    promptGiven: ui ? (text) => ui.prompts.echoGiven(text) : undefined,
    working: (busy) => {
      if (busy) interrupted.reset();
      return busy ? ui?.status.start() : ui?.status.stop();
    },
    say: (text) => say(errStyle.dim(text)),
    warn: (text) => say(errStyle.yellow(`! ${text}`)),
    error: (message, hint) => {
      say(`${errStyle.red("error:")} ${message}`);
      if (hint) say(`${errStyle.dim("hint:")} ${hint}`);
    },
    // Without a terminal, a scripted /rewind goes ahead: its plan is shown, and what it replaces is backed up for /undo.
    confirm: async (plan, question) => {
      if (ui) return ui.asker.confirm(plan, question);
      for (const line of plan) say(line);
      return true;
    },
    resumeMismatch: async (changed) => {
      const shown = `${changed.slice(0, 10).join(", ")}${changed.length > 10 ? ` and ${changed.length - 10} more` : ""}`;
      const lines = [errStyle.yellow(`! the files changed since this conversation last ran: ${shown}`)];
      if (!ui) {
        for (const line of [
          ...lines,
          errStyle.dim("  claude is told which files changed; they are recorded as your edits"),
        ])
          say(line);
        return "tell";
      }
      const choice = await ui.asker.choose(
        lines,
        "[r]ewind the files to match the conversation, or [c]ontinue and tell claude what changed? [r/C] ",
        ["rewind", "continue"],
        "continue",
      );
      return choice === "rewind" ? "rewind" : "tell";
    },
  };

  // Shift-Tab: claude's next permission mode, told to it at once (set_permission_mode), shown under the prompt.
  const startMode = input.flags.permissionMode ?? "default";
  let mode = startMode;
  function cycleMode(): void {
    if (!conversation) return;
    mode = nextMode(mode, startMode);
    conversation.setPermissionMode(mode);
    ui?.setMode(modeLabel(mode));
  }
  ui?.setMode(modeLabel(mode));

  function interrupt(): void {
    const handled = input.loop?.sigint();
    if (handled) return say(errStyle.yellow(handled));
    const state = conversation?.interrupt() ?? "idle";
    if (state !== "idle") {
      interrupted.interrupt();
      renderer.interrupted();
    }
    if (state === "interrupting") say(errStyle.yellow("⏸ interrupting the turn… (Ctrl-C again stops claude)"));
    else if (state === "killed")
      say(
        errStyle.red(
          "■ stopping claude (SIGKILL in 3s if it has not stopped; Ctrl-C again kills it now); the turn is kept as interrupted",
        ),
      );
    else if (state === "killing") say(errStyle.red("■ killing claude (SIGKILL)"));
    else if (!ui) prompts.close();
  }
  // kill, the terminal closing, Ctrl-\: stop the turn in flight, take no more prompts, and end the
  // session normally, so the bundle is complete rather than crashed.
  const onTerminate = (signal: NodeJS.Signals) => {
    if (signal === "SIGHUP") hungUp = true;
    if (!stopped) say(errStyle.yellow(`■ ${signal}: ending the session`));
    stop();
  };
  const signals: NodeJS.Signals[] = ["SIGTERM", "SIGHUP", "SIGQUIT"];
  process.on("SIGINT", interrupt);
  for (const s of signals) process.on(s, onTerminate);
  const indexer = new BackgroundIndexer(input.store);
  try {
    const outcome = await runSession({
      store: input.store,
      cwd: input.cwd,
      bin: input.bin,
      claudeConfigDir: input.claudeConfigDir,
      env: process.env,
      choice: input.choice,
      flags: input.flags,
      firstPrompt: input.firstPrompt,
      force: input.force,
      sandbox: input.sandbox ?? null,
      frontend: input.loop ? input.loop.frontend(frontend, ui !== null) : frontend,
      // A rule decides as claude asks; its line waits behind the end lines of the turns before it.
      guard: rulesGuard(input.rules, input.store.repoRoot, (line) => {
        const show = () => frontend.say(`⚖ ${line}`);
        if (conversation) conversation.inOrder(show);
        else show();
      }),
      afterTurn: input.loop?.afterTurn ?? input.afterTurn,
      onTurnSaved: (id) => indexer.touch(id),
      onConversation: (c) => {
        conversation = c;
        input.loop?.attach(c);
        if (stopped) c.stop(); // a signal came while the session was starting
      },
    });
    const turns = outcome.turns.length - 1;
    if (outcome.discarded) say(errStyle.dim(`● nothing was asked; session ${outcome.id} is not kept`));
    else if (input.sandbox) warnProjectConfig(input.sandbox, say, errStyle);
    if (!outcome.discarded)
      say(
        errStyle.dim(
          `● session ${outcome.id}: ${turns} turn${turns === 1 ? "" : "s"}, ${formatCost(totalCost(outcome.turns))} · continue with: nudge claude run -r ${shellQuote(outcome.id)}`,
        ),
      );
    // An error result, or claude gone mid-turn (crashed, killed): the turn did not finish as asked.
    const errorTurns = ui
      ? []
      : outcome.turnsRun
          .filter((t) => t.status !== "interrupted" && (t.result?.isError || t.status === "incomplete"))
          .map((t) => t.n);
    const refusedPrompts = ui ? 0 : outcome.refusedPrompts;
    return {
      id: outcome.id,
      discarded: outcome.discarded,
      hungUp: hungUp || (ui?.hungUp ?? false),
      errorTurns,
      refusedPrompts,
    };
  } finally {
    // Only once the session has ended: a Ctrl-C or a signal before that must never kill nudge mid-save.
    ui?.close();
    prompts.close();
    process.off("SIGINT", interrupt);
    for (const s of signals) process.off(s, onTerminate);
    await indexer.close();
  }
}

/** claude's project config the sandboxed claude changed runs on the host with the next claude outside: named first. */
function warnProjectConfig(
  sandbox: Sandbox,
  say: (line: string) => void,
  errStyle: ReturnType<typeof makeStyle>,
): void {
  const changed = changedProjectConfig(sandbox.projectConfig, sandbox.configFolders);
  if (changed.length === 0) return;
  const shown = changed.slice(0, 10).map((f) => path.relative(sandbox.workTree, f) || f);
  const more = changed.length > shown.length ? ` and ${changed.length - shown.length} more` : "";
  say(
    errStyle.yellow(
      `⚠ claude changed its project config in the work tree: ${shown.join(", ")}${more} — a claude run outside the sandbox (nudge claude run -c) obeys it (hooks, MCP servers): read it first`,
    ),
  );
}
