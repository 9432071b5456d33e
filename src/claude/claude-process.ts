/**
 * One long-lived `claude -p` process speaking stream-json: user messages in on stdin, every event
 * out on stdout. stdout and stderr are drained as they come, so a chatty claude can never block
 * on a full pipe.
 */
import { execa, type ResultPromise } from "execa";

export interface ClaudeLaunch {
  bin: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/** The fixed protocol flags; user-chosen flags are appended by `claudeArgs`. */
export const STREAM_JSON_ARGS = [
  "-p",
  "--verbose",
  "--input-format",
  "stream-json",
  "--output-format",
  "stream-json",
  // Echo each prompt back on stdout, so the recorded stdout alone holds the whole dialogue in order.
  "--replay-user-messages",
];

export interface ClaudeFlags {
  model?: string;
  maxTurns?: number;
  permissionMode?: string;
  allowedTools?: string;
  /** Continue this claude session (a new process after a crash, or a resumed nudge session). */
  resume?: { claudeSessionId: string; atUuid: string | null; fork: boolean };
  passthrough?: string[];
}

export function claudeArgs(flags: ClaudeFlags): string[] {
  const args = [...STREAM_JSON_ARGS];
  if (flags.model) args.push("--model", flags.model);
  if (flags.maxTurns !== undefined) args.push("--max-turns", String(flags.maxTurns));
  if (flags.permissionMode) args.push("--permission-mode", flags.permissionMode);
  if (flags.allowedTools) args.push("--allowedTools", flags.allowedTools);
  if (flags.resume) {
    args.push("--resume", flags.resume.claudeSessionId);
    // A fork point: continue under a new claude session id, seeing the conversation only up to
    // that assistant message, so the original transcript stays as it was.
    if (flags.resume.fork || flags.resume.atUuid) args.push("--fork-session");
    if (flags.resume.atUuid) args.push("--resume-session-at", flags.resume.atUuid);
  }
  args.push(...(flags.passthrough ?? []));
  return args;
}

export interface ClaudeExit {
  exitCode: number | undefined;
  signal: string | undefined;
}

export class ClaudeProcess {
  readonly exited: Promise<ClaudeExit>;
  private readonly child: ResultPromise;
  private requestCount = 0;
  private inputOpen = true;

  constructor(launch: ClaudeLaunch, onStdout: (chunk: Buffer) => void, onStderr: (chunk: Buffer) => void) {
    this.child = execa(launch.bin, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      extendEnv: launch.env === undefined,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      buffer: false,
      encoding: "buffer",
      reject: false,
      // Own process group: a Ctrl-C in the terminal reaches nudge only, which turns it into an
      // interrupt request instead of killing claude mid-write.
      detached: true,
    });
    this.child.stdout!.on("data", (chunk: Buffer) => onStdout(chunk));
    this.child.stderr!.on("data", (chunk: Buffer) => onStderr(chunk));
    // Writing to a claude that just died raises EPIPE on stdin; the exit is reported through `exited`.
    this.child.stdin!.on("error", () => {
      this.inputOpen = false;
    });
    this.exited = this.child.then(
      (r) => ({ exitCode: r.exitCode, signal: r.signal }),
      (e: { exitCode?: number; signal?: string }) => ({ exitCode: e.exitCode, signal: e.signal }),
    );
    this.exited.then(() => {
      this.inputOpen = false;
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.inputOpen;
  }

  private writeLine(message: unknown): boolean {
    if (!this.inputOpen) return false;
    return this.child.stdin!.write(JSON.stringify(message) + "\n"), true;
  }

  sendPrompt(text: string): boolean {
    // The role wrapper is required: without message.role claude fails with a TypeError.
    return this.writeLine({ type: "user", message: { role: "user", content: text } });
  }

  /** Ask claude to stop the running turn; the process and conversation live on. */
  interrupt(): string {
    const requestId = `nudge_interrupt_${++this.requestCount}`;
    this.writeLine({ type: "control_request", request_id: requestId, request: { subtype: "interrupt" } });
    return requestId;
  }

  /** EOF on stdin: claude finishes what it is doing and exits. */
  closeInput(): void {
    if (!this.inputOpen) return;
    this.inputOpen = false;
    this.child.stdin!.end();
  }

  /** Signal claude's whole process group (it has its own), so the commands its tools run stop too. */
  kill(signal: NodeJS.Signals = "SIGTERM"): void {
    try {
      if (this.child.pid) process.kill(-this.child.pid, signal);
    } catch {
      this.child.kill(signal); // the group is gone already, or was never made
    }
  }
}
