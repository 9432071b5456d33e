/**
 * The conversation loop of a live session, for any frontend: read a prompt, handle nudge's own
 * commands, record what the user changed since the last turn, run the turn, report its end.
 * A prompt already waiting (typed ahead, piped, an agentic loop's next iteration) goes to claude
 * as soon as the previous turn's code is captured. A turn's end shows in two lines: its outcome,
 * time and cost when claude's result is in, what it changed when its record is saved; the next
 * turn's output is held back until then so the screen stays in order.
 */
import type { Turn } from "../store/manifest-schema.js";
import { totalCost } from "../store/summary.js";
import type { StreamEvent } from "../claude/stream-events.js";
import { UserError } from "../base/errors.js";
import type { ClaudeLink, Restart } from "./claude-link.js";
import type { TurnHandle } from "../recorder/session-recorder.js";
import { failOnFatal, watchForFatal, type TurnFailure } from "./fatal-failures.js";
import type { Frontend } from "./frontend.js";
import { formatCost } from "../base/format.js";
import { OutputOrder } from "./output-order.js";
import { imageSize, promptContent, promptImages, type PromptImage } from "./prompt-images.js";

/** nudge's own commands inside a session; they may replace the recording (`holder.link`). */
interface SlashCommands {
  rewind(turn: number): Promise<string | null>;
  fork(turn: number | undefined): Promise<string | null>;
  compact(instructions: string): Promise<string | null>;
  undo(): Promise<string | null>;
}

export interface ConversationOptions {
  /** The live recording; /rewind, /fork, /compact and /undo switch it. */
  holder: { link: ClaudeLink };
  frontend: Frontend;
  firstPrompt?: string;
  /** A note claude gets with the first prompt (what changed in the files since it last ran). */
  note?: string | null;
  slash: SlashCommands;
  /** Where relative image paths in a prompt are found. */
  cwd: string;
  /** Called after each saved turn: an agentic loop checks and steers here (return false to stop). */
  afterTurn?: (turn: Turn) => Promise<boolean>;
}

/**
 * nudge's commands, as /help lists them; `endsWith`: the frontend's own way to end the session;
 * `keys`: the frontend's keys, listed after the commands.
 */
function helpLines(endsWith: string | undefined, keys: readonly string[] = []): string[] {
  return [
    "/session          this session's ids, bundle, turns and cost",
    "/rewind <n>       put code and conversation back to turn n",
    "/fork [n]         fork this session at turn n (default: the last) and go on in the fork",
    "/undo             undo the last rewind (files and conversation)",
    "/compact [focus]  compact claude's context in a fork; this session stays as it is",
    "/help             this list",
    `/exit             end the session${endsWith ? ` (also ${endsWith})` : ""}`,
    "any other line, claude's own commands (/clear, /cost, /model …) included, goes to claude as it is",
    ...(keys.length > 0 ? ["", ...keys] : []),
  ];
}

/** Said as claude's /clear goes: claude forgets the conversation, nudge does not. */
const CLEAR_NOTE =
  "⎿ /clear: claude starts a new conversation without the turns before it; nudge keeps recording them in this session, and /rewind <n> to one of them brings back that turn's conversation and code";

const SLASH_COMMANDS = new Set([
  "/exit",
  "/quit",
  "/q",
  "/help",
  "/h",
  "/?",
  "/session",
  "/rewind",
  "/fork",
  "/compact",
  "/undo",
]);

/** nudge's own commands only: any other line, "/src/app.ts crashes" included, is a prompt for claude. */
export function isSlashCommand(line: string): boolean {
  return SLASH_COMMANDS.has(line.trim().split(/\s+/, 1)[0]!);
}

export class Conversation {
  private failure: TurnFailure = { text: "", status: null };
  private stopping = false;
  private readonly watched = new WeakSet<object>();
  /** While a turn's changes line is not shown yet, what follows it waits (the next turns' events, rule lines). */
  private readonly order = new OutputOrder();
  /** Prompts kept back because an image they name could not go (too big, not an image): a script piping them must hear of it. */
  refusedPrompts = 0;
  /** The turns this conversation began, by session (a /fork or /rewind goes on in another). */
  readonly begun: Array<{ session: string; n: number }> = [];

  constructor(private readonly o: ConversationOptions) {}

  /** The session being recorded now (/fork and /compact go on in another). */
  get sessionId(): string {
    return this.o.holder.link.recorder.manifest.id;
  }

  /** Ctrl-C: interrupt the turn in flight (a second one stops claude). */
  interrupt(): ReturnType<ClaudeLink["interrupt"]> {
    return this.o.holder.link.interrupt();
  }

  /**
   * Between turns: end claude, so that the next turn starts one as `r` says (an agentic loop's
   * fresh iteration, its verifier, another model).
   */
  restartClaude(r: Restart): Promise<void> {
    return this.o.holder.link.restart(r);
  }

  /** Shift-Tab: claude's permission mode from now on, kept across /fork, /compact and a restarted claude. */
  setPermissionMode(mode: string): void {
    this.permissionMode = mode;
    this.o.holder.link.setPermissionMode(mode);
  }

  private permissionMode: string | undefined;

  /** claude changed its mode itself (a plan approved with accept edits): remembered for a claude started later, not sent. */
  notePermissionMode(mode: string): void {
    this.permissionMode = mode;
    this.o.holder.link.permissionMode = mode;
  }

  /** SIGTERM, the terminal closing: stop the turn in flight, take no more prompts, end normally. */
  stop(): void {
    this.stopping = true;
    this.o.holder.link.interrupt();
    this.o.frontend.prompts.close();
  }

  /** The events of a recording, on their way to the frontend. */
  show(event: StreamEvent): void {
    this.order.show(() => this.o.frontend.render(event));
  }

  /**
   * claude began a turn by itself (a background task of its ended): shown as a turn of its own,
   * its end lines in order with the others'. The next prompt waits for it (ClaudeLink.startTurn).
   */
  claudeTurn(handle: TurnHandle): void {
    const { frontend } = this.o;
    this.begun.push({ session: this.sessionId, n: handle.n });
    // After the line that began it (the task's end), which is shown right after this call.
    queueMicrotask(() =>
      this.inOrder(() => frontend.say("⎿ claude goes on by itself: a background task of its ended")),
    );
    frontend.working?.(true);
    // Its changes line waits for its end line, which waits for the turn's own events.
    const saved = () =>
      this.order.after(handle.saved, (turn) => {
        if (!turn) return;
        this.lastTurn = turn;
        frontend.turnSaved(turn);
      });
    void handle.finished.then(
      (finished) => {
        frontend.working?.(false);
        this.order.show(() => frontend.turnFinished(finished));
        saved();
      },
      () => {
        frontend.working?.(false);
        saved();
      },
    );
  }

  /** Something said about the turn in flight (a rule's decision): after the end lines of the turns before it. */
  inOrder(say: () => void): void {
    this.order.show(say);
  }

  async run(): Promise<void> {
    try {
      await this.loop();
    } finally {
      // The last turns' end lines are shown before anything that follows the session.
      await this.settle();
    }
  }

  private async loop(): Promise<void> {
    const { frontend } = this.o;
    let prompt: string | null | undefined = this.o.firstPrompt;
    // A prompt that did not come from the prompt line (the command line's) is shown as typed ones are.
    if (prompt !== undefined && prompt.trim() !== "") frontend.promptGiven?.(prompt);
    let note = this.o.note ?? null;
    let first = true;
    // The prompt about to go was waiting at the last turn's result and goes right after it (see
    // below): that turn's capture, which claude's tools wait for, covers everything until then.
    let atResult = false;
    for (;;) {
      if (this.saveFailure) throw this.saveFailure;
      if (prompt === undefined) prompt = this.stopping ? null : await frontend.prompts.next();
      if (prompt === null) return;
      const text: string = prompt;
      prompt = undefined;
      // Only the line taken right at the result: after an empty line, a command or a refused prompt, not.
      const sentAtResult = atResult;
      atResult = false;
      if (text.trim() === "") continue; // Enter on an empty prompt line: ask again
      if (isSlashCommand(text)) {
        if ((await this.slash(text.trim())) === "exit") return;
        continue;
      }
      // Images the prompt names go with it; a real one that cannot (too big, too many) keeps the
      // prompt back; a file named like an image that is not one leaves the prompt as text, with a note.
      let images: PromptImage[];
      let notAttached: string[];
      try {
        ({ images, notAttached } = await promptImages(text, this.o.cwd));
      } catch (error) {
        if (!(error instanceof UserError)) throw error;
        frontend.error(error.message, error.hint);
        this.refusedPrompts++;
        continue;
      }
      const link = this.o.holder.link;
      // A link started since the mode was chosen (/fork, /compact, /rewind) has not heard of it.
      if (this.permissionMode && link.permissionMode !== this.permissionMode)
        link.setPermissionMode(this.permissionMode);
      this.watch(link);
      this.failure = { text: "", status: null };
      // What the user changed since the last capture is theirs, recorded apart from claude's turn:
      // captured while the prompt goes, claude's tools held until it is done (edits-gate.ts). Only
      // a prompt sent at the last turn's result skips it: nothing can have been edited in between
      // that the turn's own capture did not see. One that came while the turn was being saved
      // (typed during the save, sent from the page) is captured for: the user may have edited then.
      const captureEdits = !sentAtResult;
      const sayEdits = !first;
      first = false;
      const sentText = note ? `${note}\n\n${text}` : text;
      if (images.length > 0)
        frontend.say(`⎿ with ${images.map((i) => `[image: ${i.name} ${imageSize(i.data.length)}]`).join(" ")}`);
      for (const line of notAttached) frontend.say(`⎿ ${line}`);
      if (/^\/clear(\s|$)/.test(text.trim())) this.inOrder(() => frontend.say(CLEAR_NOTE));
      const handle = await link.startTurn(
        text,
        captureEdits,
        images.length > 0 ? promptContent(sentText, images) : sentText,
      );
      this.begun.push({ session: link.recorder.manifest.id, n: handle.n });
      if (captureEdits && sayEdits) {
        // A failed capture fails the turn itself (its `ended`): reported there.
        handle.edits.then(
          (edits) =>
            edits &&
            this.inOrder(() =>
              frontend.say(
                "✎ the files changed since the last turn: recorded as your edits, apart from claude's next turn",
              ),
            ),
          () => undefined,
        );
      }
      note = null;
      frontend.working?.(true);
      // The turn's outcome, time and cost are shown the moment claude's result is in, right under
      // the result's own lines; what it changed follows once it is saved (that needs the diff).
      void handle.finished.then(
        (finished) => {
          const settled = frontend.outputSettled?.();
          if (settled) this.order.after(settled, () => frontend.turnFinished(finished));
          else this.order.show(() => frontend.turnFinished(finished));
        },
        () => undefined, // not recorded: awaited below, which says why
      );
      // A prompt already waiting goes at the result: the turn's code is captured beside it, and
      // claude's tools wait for that capture (edits-gate.ts), as for the user's edits.
      const finished = await handle.finished.finally(() => frontend.working?.(false));
      await handle.edits; // not recorded (a full disk): the turn fails here, before another prompt goes
      if (this.saveFailure) throw this.saveFailure;
      // Its changes line takes its place now: a turn claude begins by itself after this one's result shows behind it.
      this.order.after(handle.saved, (turn) => {
        if (!turn) return;
        this.lastTurn = turn;
        this.o.frontend.turnSaved(turn);
      });
      if (
        this.stopping ||
        frontend.prompts.hasQueued?.() !== true ||
        finished.status !== "complete" ||
        finished.result?.isError ||
        this.o.afterTurn
      ) {
        const turn = await handle.saved;
        await this.order.drained(); // the end lines of the turns before it first
        await this.finish(turn);
        if (this.o.afterTurn && !(await this.o.afterTurn(this.lastTurn!))) return;
      } else {
        // The next prompt goes now; this turn's changes line is shown once its record is written,
        // and the next turn's output waits behind it.
        atResult = true;
        handle.saved.catch((error: unknown) => {
          // The turn could not be saved (a full disk): stop the one already sent after it, take no
          // more, and end with this error; the next run recovers what the journal holds.
          this.saveFailure ??= error;
          this.o.holder.link.interrupt();
        });
      }
    }
  }

  private lastTurn: Turn | null = null;
  /** A turn whose save failed after the next prompt had gone: reported once the loop gets back. */
  private saveFailure: unknown = null;

  /** Every turn begun is saved and its end line shown: what nudge's own commands see is complete. */
  private async settle(): Promise<void> {
    await this.o.holder.link.recorder.settled();
    await this.order.drained();
    if (this.saveFailure) throw this.saveFailure;
  }

  /** The turn is saved and its changes line shown: a failure claude reported fails the session. */
  private async finish(turn: Turn): Promise<void> {
    const link = this.o.holder.link;
    failOnFatal(turn, this.failure.text ? this.failure : { text: link.stderrText, status: null }, link.lastExit);
  }

  private watch(link: ClaudeLink): void {
    if (this.watched.has(link)) return;
    this.watched.add(link);
    watchForFatal(link, (failure) => {
      if (this.failure.status === null) this.failure = failure;
    });
  }

  /** A slash command that fails (a bad turn number, a file in the way) is reported; the session goes on. */
  private async slash(line: string): Promise<"exit" | "handled"> {
    const { frontend } = this.o;
    const [command, ...rest] = line.split(/\s+/);
    const arg = rest.join(" ");
    await this.settle();
    try {
      switch (command) {
        case "/exit":
        case "/quit":
        case "/q":
          return "exit";
        case "/help":
        case "/h":
        case "/?":
          for (const l of helpLines(frontend.endsWith, frontend.keys)) frontend.say(l);
          return "handled";
        case "/session":
          for (const l of this.sessionLines()) frontend.say(l);
          return "handled";
        case "/rewind":
          if (!/^\d+$/.test(arg)) throw new UserError("usage: /rewind <turn>", "type /session to see the turns");
          return this.report(await this.o.slash.rewind(Number(arg)));
        case "/fork":
          if (arg && !/^\d+$/.test(arg)) throw new UserError("usage: /fork [turn]", "type /session to see the turns");
          return this.report(await this.o.slash.fork(arg ? Number(arg) : undefined));
        case "/compact":
          return this.report(await this.o.slash.compact(arg));
        case "/undo":
          return this.report(await this.o.slash.undo());
        default:
          return "handled";
      }
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      frontend.error(error.message, error.hint);
      return "handled";
    }
  }

  private report(line: string | null): "handled" {
    if (line) this.o.frontend.say(line);
    return "handled";
  }

  private sessionLines(): string[] {
    const recorder = this.o.holder.link.recorder;
    const m = recorder.manifest;
    return [
      `session        ${m.id}${m.parent ? ` (fork of ${m.parent.id} at turn ${m.parent.turn})` : ""}`,
      `claude session ${recorder.claudeSessionId ?? "(none yet)"}`,
      `bundle         ${recorder.files.dir}`,
      `turns          ${m.turns.length - 1}`,
      `cost           ${formatCost(totalCost(m.turns))}`,
    ];
  }
}
