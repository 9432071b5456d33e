/**
 * Keeps one claude process alive across turns and connects it to the recorder: its stdout and
 * stderr go into the bundle, what nudge writes to it goes into the bundle first, and its control
 * requests are answered. If claude dies, the open turn is saved as incomplete and the next turn
 * starts a fresh process that resumes the same conversation.
 */
import { sandboxed, type Sandbox } from "../claude/sandbox.js";
import {
  ClaudeProcess,
  claudeArgs,
  type ClaudeExit,
  type ClaudeFlags,
  type ClaudeLaunch,
} from "../claude/claude-process.js";
import { initializeRequest } from "../claude/control-protocol.js";
import { isToolUse, type ToolUse } from "../claude/stream-events.js";
import { UserError, errorMessage } from "../base/errors.js";
import type { SessionRecorder, TurnHandle } from "../recorder/session-recorder.js";
import { ensureTranscriptPlaced } from "./transcript-placement.js";
import type { ControlHandler } from "./control-handler.js";

export interface ClaudeLinkOptions {
  bin: string;
  flags: Omit<ClaudeFlags, "resume">;
  cwd: string;
  env: NodeJS.ProcessEnv;
  claudeConfigDir: string;
  recorder: SessionRecorder;
  control: ControlHandler;
  /** Run claude under bubblewrap (`claude loop --sandbox`). */
  sandbox?: Sandbox | null;
  /** claude went away while nudge still wanted it (not after our own EOF). */
  onUnexpectedExit?: (exit: ClaudeExit, stderrTail: string) => void;
}

/**
 * What the next claude process continues, when a loop decides it (between iterations):
 * - fresh: a new conversation (`--fresh`, a verifier), until that one has an id of its own;
 * - session: this claude session (back to the loop's own conversation after a verifier's).
 */
export type NextConversation = { kind: "fresh" } | { kind: "session"; claudeSessionId: string };

export interface Restart {
  next: NextConversation | null;
  /** Flags for this and later processes, over the session's own (a model, a verifier's tools). */
  flags: Partial<Omit<ClaudeFlags, "resume">>;
  /** Another sandbox for this and later processes (a verifier's, the work tree read-only); undefined: the session's. */
  sandbox?: Sandbox | null;
}

export class ClaudeLink {
  private process: ClaudeProcess | null = null;
  /** Set by `restart`: the conversation the next process takes up, and since which claude session it applies. */
  private next: { conversation: NextConversation; since: string | null } | null = null;
  private flagsOver: Partial<Omit<ClaudeFlags, "resume">> = {};
  private sandboxOver: Sandbox | null | undefined = undefined;
  private closing = false;
  private stderrTail = "";
  private interrupts = 0;
  private recordingFailure: unknown = null;

  /** Writing the recording failed (a full disk): claude was stopped by nudge, whatever it had said. */
  get recordingFailed(): boolean {
    return this.recordingFailure !== null;
  }
  /** The process the user asked to stop (Ctrl-C twice): its exit is no news. */
  private stoppedOnPurpose: ClaudeProcess | null = null;
  private exitHandled: Promise<unknown> = Promise.resolve();
  /** The assistant's tool_use blocks by id: a permission request refers to one (ExitPlanMode's plan is only there). */
  private readonly toolUses = new Map<string, ToolUse>();

  constructor(private readonly o: ClaudeLinkOptions) {
    o.recorder.listen({
      event: (event) => {
        if (event.type === "assistant") {
          for (const block of event.message.content) if (isToolUse(block)) this.toolUses.set(block.id, block);
        }
        if (event.type === "control_request") void this.answer(event);
      },
    });
  }

  get recorder(): SessionRecorder {
    return this.o.recorder;
  }

  toolUse(id: string | undefined): ToolUse | undefined {
    return id ? this.toolUses.get(id) : undefined;
  }

  /** How the last claude process ended (null while it runs, or before the first). */
  lastExit: ClaudeExit | null = null;

  /** The end of what the current (or last) claude process wrote on stderr. */
  get stderrText(): string {
    return this.stderrTail.trim();
  }

  /**
   * Send one prompt as its own turn. `captureEdits`: record what the user changed since the last
   * capture, beside the prompt (claude's tools wait for it: edits-gate.ts). `sent`: what claude
   * gets, when it is more than the user's prompt (a note from nudge in front of it).
   */
  async startTurn(
    prompt: string,
    captureEdits: boolean,
    sent: string | readonly object[] = prompt,
  ): Promise<TurnHandle> {
    let process = await this.ensureProcess();
    // A claude that died while it was starting (before any turn was open to be ended by its exit):
    // start another, once; a second one dying the same way is reported like any dead claude.
    if (process.gone && !this.recordingFailure) {
      await this.exitHandled;
      process = await this.ensureProcess();
    }
    // A turn claude began by itself (a background task ended) is answered before the prompt goes.
    await this.o.recorder.turnEnded();
    this.interrupts = 0;
    let handle: TurnHandle;
    try {
      handle = this.o.recorder.beginTurn(prompt, { captureEdits });
    } catch (error) {
      throw withDiskHint(error);
    }
    // The prompt is recorded either way; one claude can no longer take ends its turn as incomplete.
    if (this.recordingFailure || process.gone) void this.o.recorder.processExited().catch(() => undefined);
    else this.guard(process, () => process.sendPrompt(sent));
    const failFirst = <T>(p: Promise<T>) =>
      p.then(
        (value) => {
          if (this.recordingFailure) throw this.recordingError();
          return value;
        },
        (error: unknown) => {
          // The first failure to record is the one to report; saving the turn may fail after it too.
          if (this.recordingFailure) throw this.recordingError();
          throw withDiskHint(error);
        },
      );
    const finished = failFirst(handle.finished);
    const saved = failFirst(handle.saved);
    const edits = failFirst(handle.edits);
    for (const p of [finished, saved, edits]) p.catch(() => undefined);
    return { n: handle.n, finished, saved, edits };
  }

  private recordingError(): UserError {
    return new UserError(
      `could not write the recording (${errorMessage(this.recordingFailure)}); claude was stopped so that nothing happens unrecorded`,
      "free disk space (or fix the bundle folder's permissions), then continue with: nudge claude run -c",
    );
  }

  /** Recording what claude writes failed (a full disk): stop claude rather than let it act unrecorded. */
  private guard(process: ClaudeProcess, record: () => void): void {
    if (this.recordingFailure) return;
    try {
      record();
    } catch (error) {
      this.recordingFailure = error;
      process.kill("SIGKILL");
    }
  }

  /**
   * Ctrl-C during a turn: ask claude to stop it; a second Ctrl-C stops claude itself (SIGTERM,
   * then SIGKILL after `stopGraceMs` if it has not gone: a claude that is stopped, hung or ignoring
   * SIGTERM must still end); a third kills it at once.
   */
  interrupt(): "interrupting" | "killed" | "killing" | "idle" {
    const process = this.process;
    if (!process || !this.o.recorder.turnInProgress) return "idle";
    this.interrupts++;
    if (this.interrupts === 1) {
      // The turn reads interrupted however claude ends now (stopped later, it leaves no result): the user asked for it.
      this.o.recorder.markInterruptRequested();
      this.guard(process, () => process.interrupt());
      return "interrupting";
    }
    this.stoppedOnPurpose = process;
    if (this.interrupts > 2) {
      process.kill("SIGKILL");
      return "killing";
    }
    // A stopped claude (kill -STOP) keeps SIGTERM pending and a hung one may never act on it:
    // SIGKILL after the grace period ends either.
    process.kill("SIGTERM");
    const kill = setTimeout(() => process.kill("SIGKILL"), this.stopGraceMs);
    kill.unref();
    void process.exited.then(() => clearTimeout(kill));
    return "killed";
  }

  /** The permission mode chosen during the session (Shift-Tab); undefined: the flags' own. */
  permissionMode: string | undefined;

  /** Claude's permission mode from now on: told to the running claude, and given to any it starts later. */
  setPermissionMode(mode: string): void {
    this.permissionMode = mode;
    const process = this.process;
    if (process?.alive) this.guard(process, () => process.setPermissionMode(mode));
  }

  /** How long claude gets to exit after SIGTERM from a stop before SIGKILL. */
  stopGraceMs = 3_000;

  /** Close claude's input, let it exit (or stop it after a grace period), and wait for the last turn. */
  async end(graceMs = 10_000): Promise<void> {
    this.closing = true;
    const process = this.process;
    if (!process) return;
    process.closeInput();
    // EOF first; a claude that does not exit gets SIGTERM, and one that ignores that, SIGKILL.
    const term = setTimeout(() => process.kill("SIGTERM"), graceMs);
    const kill = setTimeout(() => process.kill("SIGKILL"), graceMs + 5_000);
    await process.exited;
    clearTimeout(term);
    clearTimeout(kill);
    await this.exitHandled;
  }

  /**
   * End the claude process between turns, so that the next turn starts one with `r`'s flags and
   * conversation. Its exit is expected: it is not reported as claude going away.
   */
  async restart(r: Restart): Promise<void> {
    await this.end();
    this.closing = false;
    this.flagsOver = r.flags;
    this.sandboxOver = r.sandbox;
    this.next = r.next && { conversation: r.next, since: this.o.recorder.claudeSessionId };
  }

  private launch(l: ClaudeLaunch): ClaudeLaunch {
    const sandbox = this.sandboxOver === undefined ? this.o.sandbox : this.sandboxOver;
    return sandbox ? sandboxed(l, sandbox) : l;
  }

  /** The conversation the next process continues (undefined: a new one). */
  private resumeFrom(): ClaudeFlags["resume"] {
    const recorder = this.o.recorder;
    const manifest = recorder.manifest;
    const last = recorder.claudeSessionId;
    // A turn of the conversation chosen by `restart` has been saved since: carry on as usual.
    if (this.next && last !== this.next.since) this.next = null;
    if (this.next?.conversation.kind === "fresh") return undefined;
    if (this.next?.conversation.kind === "session")
      return { claudeSessionId: this.next.conversation.claudeSessionId, atUuid: null, fork: false };
    // Not a loop's verifier: its conversation checked the work, the next run goes on with the work's (QA).
    const work =
      manifest.turns.findLast((t) => t.claudeSessionId && t.loop?.role !== "verifier")?.claudeSessionId ?? last;
    return manifest.resume
      ? { claudeSessionId: manifest.resume.claudeSessionId, atUuid: manifest.resume.atUuid, fork: true }
      : work
        ? { claudeSessionId: work, atUuid: null, fork: false }
        : undefined;
  }

  private async answer(event: Parameters<ControlHandler["respond"]>[0]): Promise<void> {
    const process = this.process;
    const response = await this.o.control.respond(event);
    if (process && process === this.process && process.alive) this.guard(process, () => process.writeMessage(response));
  }

  private async ensureProcess(): Promise<ClaudeProcess> {
    if (this.process?.alive) return this.process;
    await this.exitHandled; // the last process's exit is fully handled before another starts
    if (this.recordingFailure) throw this.recordingError();
    const recorder = this.o.recorder;
    const manifest = recorder.manifest;
    const resume = this.resumeFrom();
    if (resume) {
      // --resume finds a conversation only under the cwd's project folder of this machine's config.
      await ensureTranscriptPlaced({
        bundleDir: recorder.files.dir,
        manifest,
        claudeSessionId: resume.claudeSessionId,
        claudeConfigDir: this.o.claudeConfigDir,
        cwd: this.o.cwd,
      });
    }
    this.stderrTail = "";
    let wroteAnything = false;
    const process: ClaudeProcess = new ClaudeProcess(
      // A restart's own flags (a verifier's mode) first, then the mode chosen with Shift-Tab.
      this.launch({
        bin: this.o.bin,
        args: claudeArgs({
          ...this.o.flags,
          ...this.flagsOver,
          permissionMode: this.flagsOver.permissionMode ?? this.permissionMode ?? this.o.flags.permissionMode,
          resume,
        }),
        cwd: this.o.cwd,
        env: this.o.env,
      }),
      {
        onStdout: (chunk) => {
          wroteAnything = true;
          this.guard(process, () => recorder.handleStdout(chunk));
        },
        onStderr: (chunk) => {
          this.guard(process, () => recorder.handleStderr(chunk));
          this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-4000);
        },
        onInput: (line) => recorder.recordInput(line),
      },
    );
    this.process = process;
    await recorder.processStarted(process.pid);
    const hooks = this.o.control.hooks;
    if (hooks) this.guard(process, () => process.writeMessage(initializeRequest("nudge_init", hooks)));
    // Never rejects: a failure to save the open turn reaches the caller through that turn's promise.
    this.lastExit = null;
    this.exitHandled = process.exited.then(async (exit) => {
      this.lastExit = exit;
      const wasInTurn = recorder.turnInProgress;
      try {
        await recorder.processExited();
      } catch {
        // reported through the turn's own promise
      }
      // Stopped by nudge itself because the recording failed: that error is the one to report.
      const expected = this.recordingFailure || this.stoppedOnPurpose === process;
      // Arguments claude rejects (it exits with an error before a word): the turn's failure says so, once.
      const rejected = !wroteAnything && !exit.signal && exit.exitCode !== 0;
      if (rejected) return;
      if ((!this.closing || wasInTurn) && this.process === process && !expected)
        this.o.onUnexpectedExit?.(exit, this.stderrText);
    });
    return process;
  }
}

/** A full disk while recording: the next run recovers the turn from the logs, so say how to go on. */
export function withDiskHint(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === "ENOSPC" || code === "EDQUOT")
    return new UserError(errorMessage(error), "free some disk space, then continue with: nudge claude run -c");
  return error;
}
