/**
 * Keeps one claude process alive across turns and feeds it to the recorder. If claude dies, the
 * open turn is saved as incomplete and the next prompt starts a fresh process that resumes the
 * same conversation.
 */
import type { Turn } from "../bundle/manifest-schema.js";
import { ClaudeProcess, claudeArgs, type ClaudeExit, type ClaudeFlags } from "../claude/claude-process.js";
import { UserError, errorMessage } from "../errors.js";
import { ensureTranscriptPlaced } from "./transcript-placement.js";
import type { SessionRecorder } from "./session-recorder.js";

export interface LiveSessionOptions {
  bin: string;
  flags: Omit<ClaudeFlags, "resume">;
  cwd: string;
  env: NodeJS.ProcessEnv;
  claudeConfigDir: string;
  recorder: SessionRecorder;
  /** claude went away while nudge still wanted it (not after our own EOF). */
  onUnexpectedExit?: (exit: ClaudeExit, stderrTail: string) => void;
}

export class LiveSession {
  private process: ClaudeProcess | null = null;
  private closing = false;
  private stderrTail = "";
  private interrupts = 0;

  constructor(private readonly o: LiveSessionOptions) {}

  get recorder(): SessionRecorder {
    return this.o.recorder;
  }

  /** The end of what the current (or last) claude process wrote on stderr. */
  get stderrText(): string {
    return this.stderrTail.trim();
  }

  /** Send one prompt as its own turn and wait until it is recorded (result, snapshot, manifest). */
  async runTurn(prompt: string): Promise<Turn> {
    const process = await this.ensureProcess();
    this.interrupts = 0;
    const { saved } = await this.o.recorder.beginTurn(prompt);
    process.sendPrompt(prompt);
    // The first failure to record is the one to report; saving the turn may fail after it too.
    const turn = await saved.catch((error: unknown) => {
      throw this.recordingFailure ? this.recordingError() : error;
    });
    if (this.recordingFailure) throw this.recordingError();
    return turn;
  }

  private recordingError(): UserError {
    return new UserError(
      `could not write the recording (${errorMessage(this.recordingFailure)}); claude was stopped so that nothing happens unrecorded`,
      "free disk space (or fix the bundle folder's permissions), then continue with: nudge claude run -c",
    );
  }

  private recordingFailure: unknown = null;

  /** Recording what claude writes failed (a full disk): stop claude rather than let it act unrecorded. */
  private guard(process: ClaudeProcess, record: () => void): void {
    if (this.recordingFailure) return;
    try {
      record();
    } catch (error) {
      this.recordingFailure = error;
      process.kill("SIGTERM");
    }
  }

  /** Ctrl-C during a turn: ask claude to stop it; a second Ctrl-C stops claude itself. */
  interrupt(): "interrupting" | "killed" | "idle" {
    if (!this.process || !this.o.recorder.turnInProgress) return "idle";
    this.interrupts++;
    if (this.interrupts === 1) {
      this.o.recorder.markInterruptRequested();
      this.process.interrupt();
      return "interrupting";
    }
    this.process.kill("SIGTERM");
    return "killed";
  }

  /** Close claude's input, let it exit (or stop it after a grace period), and finish the bundle. */
  async end(graceMs = 10_000): Promise<void> {
    this.closing = true;
    const process = this.process;
    if (process) {
      process.closeInput();
      // EOF first; a claude that does not exit gets SIGTERM, and one that ignores that, SIGKILL.
      const term = setTimeout(() => process.kill("SIGTERM"), graceMs);
      const kill = setTimeout(() => process.kill("SIGKILL"), graceMs + 5_000);
      await process.exited;
      clearTimeout(term);
      clearTimeout(kill);
      await this.exitHandled;
    }
    // Whatever happened to the last turn, the bundle is closed and its lock released.
    await this.o.recorder.close();
  }

  private exitHandled: Promise<unknown> = Promise.resolve();

  private async ensureProcess(): Promise<ClaudeProcess> {
    if (this.process?.alive) return this.process;
    const manifest = this.o.recorder.manifest;
    const last = this.o.recorder.claudeSessionId;
    const resume = manifest.resume
      ? { claudeSessionId: manifest.resume.claudeSessionId, atUuid: manifest.resume.atUuid, fork: true }
      : last
        ? { claudeSessionId: last, atUuid: null, fork: false }
        : undefined;
    if (resume) {
      // --resume finds a conversation only under the cwd's project folder of this machine's config.
      await ensureTranscriptPlaced({
        bundleDir: this.o.recorder.files.dir,
        manifest,
        claudeSessionId: resume.claudeSessionId,
        claudeConfigDir: this.o.claudeConfigDir,
        cwd: this.o.cwd,
      });
    }
    const recorder = this.o.recorder;
    this.stderrTail = "";
    const process: ClaudeProcess = new ClaudeProcess(
      { bin: this.o.bin, args: claudeArgs({ ...this.o.flags, resume }), cwd: this.o.cwd, env: this.o.env },
      (chunk) => this.guard(process, () => recorder.handleStdout(chunk)),
      (chunk) => {
        this.guard(process, () => recorder.handleStderr(chunk));
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-4000);
      },
    );
    this.process = process;
    await recorder.processStarted(process.pid);
    // Never rejects: a failure to save the open turn reaches the caller through that turn's promise.
    this.exitHandled = process.exited.then(async (exit) => {
      const wasInTurn = recorder.turnInProgress;
      await recorder.processExited().catch(() => undefined);
      if ((!this.closing || wasInTurn) && this.process === process) this.o.onUnexpectedExit?.(exit, this.stderrText);
    });
    return process;
  }
}
