/**
 * The loop's `--until` check: a shell command run in the work tree after every turn. Its own
 * process group, so a timeout or a stop ends everything it started (npm → node → workers), and
 * stdin closed, so it can never wait on the terminal. Only the end of its output is kept: test
 * runners print their summary last, and a check may print megabytes.
 */
import { execa } from "execa";
import type { Turn } from "../store/manifest-schema.js";
import { sandboxedCommand, type Sandbox } from "../claude/sandbox.js";
import { UserError } from "../base/errors.js";

/** What is kept of the output in memory (for the summary) and on the turn (for show and the prompt). */
const KEEP_BYTES = 64 * 1024;
const TAIL_LINES = 60;
const TAIL_CHARS = 8000;

export interface CheckRun {
  command: string;
  /** null: it did not exit by itself (timed out, or stopped). */
  exitCode: number | null;
  timedOut: boolean;
  /** Stopped by the user (Ctrl-C) or by the loop's time budget: no verdict. */
  aborted: boolean;
  /** The end of stdout and stderr together, without colours, at most 64 KiB. */
  output: string;
  /** The last lines of `output`, as stored on the turn and sent to claude. */
  tail: string;
  outputBytes: number;
  durationMs: number;
}

export interface CheckOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** --sandbox: the check runs code claude may have written (its tests, its package.json): confined as claude is. */
  sandbox?: Sandbox | null;
}

/** A check that cannot even be parsed is the user's to fix before anything runs. */
export async function assertCheckSyntax(command: string): Promise<void> {
  if (command.trim() === "")
    throw new UserError(
      "--until is empty",
      'give a shell command that exits 0 when the goal is met, e.g. --until "npm test"',
    );
  const parsed = await execa("/bin/sh", ["-n", "-c", command], { reject: false, stdin: "ignore", all: true });
  if (parsed.exitCode !== 0) {
    throw new UserError(
      `--until is not a valid shell command: ${lastLine(String(parsed.all ?? ""))}`,
      "quote the whole check once for your shell, e.g. --until 'npm test -- --run'",
    );
  }
}

export async function runCheck(command: string, options: CheckOptions): Promise<CheckRun> {
  const started = Date.now();
  const { file, args } = options.sandbox
    ? sandboxedCommand(options.sandbox, "/bin/sh", ["-c", command], options.cwd)
    : { file: "/bin/sh", args: ["-c", command] };
  const child = execa(file, args, {
    cwd: options.cwd,
    env: options.env,
    stdin: "ignore",
    all: true,
    buffer: false,
    encoding: "buffer",
    reject: false,
    detached: true,
  });
  let kept = Buffer.alloc(0);
  let outputBytes = 0;
  child.all!.on("data", (chunk: Buffer) => {
    outputBytes += chunk.length;
    kept = Buffer.concat([kept, chunk]);
    if (kept.length > KEEP_BYTES * 2) kept = kept.subarray(kept.length - KEEP_BYTES);
  });
  let timedOut = false;
  let aborted = false;
  const stop = () => {
    stopGroup(child.pid, "SIGTERM");
    // A check that ignores SIGTERM (or a child that does) is not waited on for long.
    setTimeout(() => stopGroup(child.pid, "SIGKILL"), 2000).unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    stop();
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const result = await child;
  clearTimeout(timer);
  options.signal?.removeEventListener("abort", onAbort);
  // The group may outlive sh (a background job): it is the check's, so it goes too.
  stopGroup(child.pid, "SIGKILL");
  const output = cleanOutput(kept.subarray(Math.max(0, kept.length - KEEP_BYTES)).toString("utf8"));
  const exitCode = timedOut || aborted ? null : (result.exitCode ?? null);
  let tail = tailOf(output);
  if (timedOut)
    tail =
      `${tail}\n(nudge: the check timed out after ${Math.round(options.timeoutMs / 1000)}s and was stopped)`.trimStart();
  return { command, exitCode, timedOut, aborted, output, tail, outputBytes, durationMs: Date.now() - started };
}

function stopGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

/** Colours and cursor codes out; a line redrawn with \r (a progress bar) keeps only its last state. */
function cleanOutput(text: string): string {
  return text
    .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g, "")
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/\u001b[@-_]/g, "")
    .split("\n")
    .map((line) => {
      const l = line.endsWith("\r") ? line.slice(0, -1) : line;
      return l.slice(l.lastIndexOf("\r") + 1);
    })
    .join("\n");
}

function tailOf(output: string): string {
  const lines = output.replace(/\s+$/, "").split("\n");
  let tail = lines.slice(-TAIL_LINES).join("\n");
  if (tail.length > TAIL_CHARS) tail = tail.slice(tail.length - TAIL_CHARS);
  return tail;
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1) ?? "";
}

/** What a turn keeps of a check (the bundle's schema). */
export function storedCheck(run: CheckRun): NonNullable<Turn["check"]> {
  return { command: run.command, exitCode: run.exitCode, tail: run.tail, durationMs: run.durationMs };
}
