/**
 * One long-lived `claude -p` process speaking stream-json: user messages and control responses in
 * on stdin, every event out on stdout. stdout and stderr are drained as they come, so a chatty
 * claude can never block on a full pipe. claude runs in a process group of its own, and when it
 * ends, whatever its tools left running in that group is stopped too.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { Readable, Writable } from "node:stream";

export interface ClaudeLaunch {
  bin: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/** The fixed protocol flags; user-chosen flags are appended by `claudeArgs`. */
const STREAM_JSON_ARGS = [
  "-p",
  "--verbose",
  "--input-format",
  "stream-json",
  "--output-format",
  "stream-json",
  // Echo each prompt back on stdout, so the recorded stdout alone holds the whole dialogue in order.
  "--replay-user-messages",
  // Text as it is generated (stream_event lines); the whole message still follows each time.
  "--include-partial-messages",
];

export interface ClaudeFlags {
  model?: string;
  maxTurns?: number;
  permissionMode?: string;
  allowedTools?: string;
  disallowedTools?: string;
  /** The built-in tools claude has at all (`--tools`): a loop's verifier gets read-only ones. */
  tools?: string;
  /** Continue this claude session (a new process after a crash, or a resumed nudge session). */
  resume?: { claudeSessionId: string; atUuid: string | null; fork: boolean };
  passthrough?: string[];
}

export function claudeArgs(flags: ClaudeFlags): string[] {
  const args = [...STREAM_JSON_ARGS];
  // Permission questions come to nudge as control requests, unless the user chose another tool for them.
  if (!flags.passthrough?.includes("--permission-prompt-tool")) args.push("--permission-prompt-tool", "stdio");
  if (flags.model) args.push("--model", flags.model);
  if (flags.maxTurns !== undefined) args.push("--max-turns", String(flags.maxTurns));
  if (flags.permissionMode) args.push("--permission-mode", flags.permissionMode);
  if (flags.allowedTools) args.push("--allowedTools", flags.allowedTools);
  if (flags.disallowedTools) args.push("--disallowedTools", flags.disallowedTools);
  if (flags.tools) args.push("--tools", flags.tools);
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

export interface ClaudeStreams {
  onStdout(chunk: Buffer): void;
  onStderr(chunk: Buffer): void;
  /** Every line about to be written to claude's stdin, first (the recording keeps both directions). */
  onInput(line: string): void;
}

/** How long the tools claude left behind get to stop after SIGTERM before SIGKILL. */
const GROUP_GRACE_MS = 1_000;

export class ClaudeProcess {
  readonly exited: Promise<ClaudeExit>;
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private requestCount = 0;
  private inputOpen = true;

  constructor(
    launch: ClaudeLaunch,
    private readonly streams: ClaudeStreams,
  ) {
    // Every process claude starts inherits this mark, even one in a session of its own (claude runs
    // each Bash command under setsid), so what it left running is found when it is gone.
    const mark = `${process.pid}-${randomBytes(6).toString("hex")}`;
    // node's own spawn, not execa: nothing here needs more, and loading execa cost `claude run`
    // ~90 ms of its start-up (measured on 2 cores), before claude could even be started.
    this.child = spawn(launch.bin, launch.args, {
      cwd: launch.cwd,
      env: { ...(launch.env ?? process.env), [MARK]: mark },
      stdio: ["pipe", "pipe", "pipe"],
      // Own process group: a Ctrl-C in the terminal reaches nudge only, which turns it into an
      // interrupt request instead of killing claude mid-write; and the group is what is stopped.
      detached: true,
    });
    this.child.stdout.on("data", (chunk: Buffer) => streams.onStdout(chunk));
    this.child.stderr.on("data", (chunk: Buffer) => streams.onStderr(chunk));
    // Writing to a claude that just died raises EPIPE on stdin; the exit is reported through `exited`.
    this.child.stdin.on("error", () => {
      this.inputOpen = false;
    });
    const pid = this.child.pid;
    this.exited = new Promise<ClaudeExit>((resolve) => {
      // A claude that cannot be started at all (ENOENT, EACCES) exits with neither a code nor a signal.
      this.child.once("error", () => resolve({ exitCode: undefined, signal: undefined }));
      this.child.once("close", (code, signal) => resolve({ exitCode: code ?? undefined, signal: signal ?? undefined }));
    }).then(async (exit) => {
      this.inputOpen = false;
      this.gone = true;
      if (pid) await stopLeftovers(pid, mark);
      return exit;
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Can it still take input? */
  get alive(): boolean {
    return this.inputOpen;
  }

  /** Has the process exited (its tools may still be being stopped)? */
  gone = false;

  /** Write one message; false when claude is gone. */
  writeMessage(message: unknown): boolean {
    if (!this.inputOpen) return false;
    const line = JSON.stringify(message);
    this.streams.onInput(line);
    this.child.stdin.write(line + "\n");
    return true;
  }

  /** A prompt: text, or content blocks (images beside the text). */
  sendPrompt(content: string | readonly object[]): boolean {
    // The role wrapper is required: without message.role claude fails with a TypeError.
    return this.writeMessage({ type: "user", message: { role: "user", content } });
  }

  /** Ask claude to stop the running turn; the process and conversation live on. */
  interrupt(): string {
    const requestId = `nudge_interrupt_${++this.requestCount}`;
    this.writeMessage({ type: "control_request", request_id: requestId, request: { subtype: "interrupt" } });
    return requestId;
  }

  /**
   * Change the permission mode for what claude does next, without a restart (measured on 2.1.329:
   * claude answers with a control_response holding the mode, and its next system/init reports it).
   */
  setPermissionMode(mode: string): string {
    const requestId = `nudge_mode_${++this.requestCount}`;
    this.writeMessage({
      type: "control_request",
      request_id: requestId,
      request: { subtype: "set_permission_mode", mode },
    });
    return requestId;
  }

  /** EOF on stdin: claude finishes what it is doing and exits. */
  closeInput(): void {
    if (!this.inputOpen) return;
    this.inputOpen = false;
    this.child.stdin.end();
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

const MARK = "NUDGE_CLAUDE_RUN";

/**
 * claude is gone; anything its tools started (a Bash command, a dev server) must not go on
 * changing files nobody records: its process group, and every process carrying its mark (Linux:
 * found through /proc), get SIGTERM, a grace period, then SIGKILL.
 */
async function stopLeftovers(pid: number, mark: string): Promise<void> {
  const marked = () => markedProcesses(mark);
  signalGroup(pid, "SIGTERM");
  for (const p of marked()) signal(p, "SIGTERM");
  for (let waited = 0; waited < GROUP_GRACE_MS; waited += 50) {
    if (!signalGroup(pid, 0) && marked().length === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  signalGroup(pid, "SIGKILL");
  for (const p of marked()) signal(p, "SIGKILL");
}

/** The pids whose environment holds the mark (only this user's processes can be read: that is all it needs). */
function markedProcesses(mark: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return []; // no /proc (not Linux): the process group is all that can be stopped
  }
  const needle = Buffer.from(`\0${MARK}=${mark}\0`);
  const found: number[] = [];
  for (const name of pids) {
    if (Number(name) === process.pid) continue;
    try {
      const environ = Buffer.concat([Buffer.from("\0"), readFileSync(`/proc/${name}/environ`), Buffer.from("\0")]);
      if (environ.includes(needle)) found.push(Number(name));
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return found;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone meanwhile
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // no process left in the group
  }
}
