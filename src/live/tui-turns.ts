/**
 * The recorder driven by claude's own UI's hooks (tui-session.ts): a prompt begins a turn, Stop
 * ends it with its part of claude's transcript; hooks are handled one after another.
 */
import { errorMessage } from "../base/errors.js";
import { CLAUDE_TURN_PROMPT, isTaskNotificationPrompt } from "../claude/task-notification.js";
import type { SessionRecorder } from "../recorder/session-recorder.js";
import { endsTurn, firstPrompt, type TranscriptTail } from "./transcript-tail.js";
import type { HookInput, RecordedEvent } from "./tui-hooks.js";

/** How long a turn's end waits for claude's last lines of it (measured: tens of ms); a failed turn may write none. */
const STOP_WAIT_MS = 3000;
const FAILURE_WAIT_MS = 500;

export class TuiTurns {
  /** The claude session of the open turn (every hook names it). */
  private claudeSession: string | null = null;
  /** Hooks are handled one after another: a Stop's lines are taken before the next prompt begins. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly recorder: SessionRecorder,
    private readonly tail: TranscriptTail,
    private readonly warn: (w: string) => void,
  ) {}

  /**
   * A prompt is answered once its turn is begun (its prompt durable before claude sends it); a
   * turn's end at once (claude writes the turn's last lines after it, which the end waits for).
   */
  async event(event: RecordedEvent, hook: HookInput): Promise<object> {
    const run = this.queue.then(() => this.handle(event, hook));
    this.queue = run.catch((error: unknown) => this.warn(`${event}: ${errorMessage(error)}`));
    if (event === "UserPromptSubmit") await this.queue;
    return {};
  }

  /** A turn an earlier process began in claude session `id` is open here (installed hooks: one process per hook). */
  adopt(id: string | null): void {
    this.claudeSession = id;
  }

  /** A claude session not seen before starts at `from` in its transcript (a prompt noted earlier, begun now). */
  transcriptFrom(id: string, from: number): void {
    this.tail.startAt(id, from);
  }

  /** Every hook so far is handled: claude's next tool waits for this, then for the capture a turn's end began. */
  handled(): Promise<unknown> {
    return this.queue;
  }

  private async handle(event: RecordedEvent, hook: HookInput): Promise<void> {
    if (event === "UserPromptSubmit") {
      // A prompt typed while claude works joins the running turn, as claude treats it.
      if (this.recorder.turnInProgress) return;
      this.claudeSession = hook.session_id;
      await this.tail.begin(hook.session_id);
      // claude's answer to its own background task's end: what changed since the last turn is the
      // task's work, so it is this turn's (claude's), not captured apart as the user's edits.
      const prompt = hook.prompt ?? "";
      if (isTaskNotificationPrompt(prompt)) this.recorder.beginTurn(CLAUDE_TURN_PROMPT);
      else this.recorder.beginTurn(prompt, { captureEdits: true });
    } else if (event === "Stop" || event === "StopFailure") {
      await this.end(hook.session_id, event);
    }
  }

  /** The turn's part of the transcript taken as its lines; a turn claude began itself (a background task's end) is begun here. */
  private async end(id: string, event: "Stop" | "StopFailure"): Promise<void> {
    if (!this.recorder.turnInProgress) {
      // Nothing to record unless claude wrote something since the last turn.
      await this.tail.begin(id);
      const part = await this.taken(id, event);
      if (part.lines.length === 0) return;
      this.recorder.beginTurn(firstPrompt(part.lines) ?? "(claude went on by itself)");
      await this.recorder.endTurnByHook(Promise.resolve(part), true)!.finished;
      return;
    }
    const part = this.taken(id, event);
    this.recorder.endTurnByHook(part, true);
    await part;
  }

  /** The turn's part, once claude wrote its end or the wait ran out; a Stop's that ran out is said (a failed turn may write no end). */
  private async taken(id: string, event: "Stop" | "StopFailure"): Promise<{ lines: Buffer; upTo: number }> {
    const part = await this.tail.take(id, event === "Stop" ? STOP_WAIT_MS : FAILURE_WAIT_MS);
    if (event === "Stop" && part.lines.length > 0 && !endsTurn(part.lines))
      this.warn(
        `Stop: claude wrote no end of its turn within ${STOP_WAIT_MS / 1000} s; the turn is saved with the lines written by then`,
      );
    return part;
  }

  /**
   * Turns claude ran while no nudge recorded (its hooks could not reach one): one turn, with the code
   * as it is now. `before`: only what claude wrote before then (a noted prompt's own lines follow).
   */
  async recordMissed(before?: number): Promise<void> {
    // A fork point (a rewound session) goes on from an earlier message: what follows it in claude's transcript is another session's.
    if (this.recorder.manifest.resume) return;
    const missed = await this.tail.missed(this.recorder.claudeSessionId, before);
    if (!missed) return;
    this.recorder.beginTurn(firstPrompt(missed.lines) ?? "(turns nudge did not see)");
    const turn = await this.recorder.endTurnByHook(Promise.resolve(missed), true)!.saved;
    this.warn(
      `recorded turn ${turn.n} from claude's transcript: claude went on while nudge was not recording (its changes and any of yours are in it together)`,
    );
  }

  /**
   * claude is gone: a turn still open is saved with what its transcript holds, as incomplete unless
   * claude had written its end (it exited before the turn's Stop was handled).
   */
  async claudeExited(waitMs = 0): Promise<void> {
    await this.queue;
    if (!this.recorder.turnInProgress || !this.claudeSession) return;
    const part = await this.tail.take(this.claudeSession, waitMs);
    await this.recorder.endTurnByHook(Promise.resolve(part), endsTurn(part.lines))!.finished;
  }
}
