/**
 * Reading git's own trace (GIT_TRACE2_EVENT: one JSON line per event, with UTC times to the
 * microsecond) to list the git processes nudge ran inside a time window, e.g. between claude's
 * result and the next prompt reaching claude.
 */
import { readFileSync } from "node:fs";

export interface GitProcess {
  /** Epoch milliseconds. */
  start: number;
  end: number | null;
  /** The git command with nudge's `-c name=value` settings left out. */
  command: string;
}

export function readTrace(file: string): GitProcess[] {
  const byId = new Map<string, GitProcess>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    const e = JSON.parse(line) as { event: string; sid: string; time: string; argv?: string[] };
    // A sid with "/" is a process git itself started (a hook, a helper): part of its parent's time.
    if (e.sid.includes("/")) continue;
    if (e.event === "start")
      byId.set(e.sid, { start: Date.parse(e.time) + micros(e.time), end: null, command: commandOf(e.argv ?? []) });
    if (e.event === "exit") {
      const p = byId.get(e.sid);
      if (p) p.end = Date.parse(e.time) + micros(e.time);
    }
  }
  return [...byId.values()].sort((a, b) => a.start - b.start);
}

/** Date.parse keeps milliseconds only; trace2 gives microseconds. */
function micros(time: string): number {
  const frac = /\.(\d+)Z$/.exec(time)?.[1] ?? "";
  return Number(`0.${frac.slice(3).padEnd(3, "0")}`);
}

function commandOf(argv: string[]): string {
  const out: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === "-c") i++;
    else out.push(argv[i]!.length > 44 ? `${argv[i]!.slice(0, 12)}…` : argv[i]!);
  }
  return out.join(" ");
}

/** The processes that started inside [from, to] (epoch ms). */
export function inWindow(processes: GitProcess[], from: number, to: number): GitProcess[] {
  return processes.filter((p) => p.start >= from && p.start <= to);
}

/** One window as text: each process's start after `from`, its duration, and whether the prompt waited for it. */
export function describeWindow(processes: GitProcess[], from: number, to: number): string[] {
  return inWindow(processes, from, to).map((p) => {
    const ran = p.end === null ? "?" : (p.end - p.start).toFixed(1);
    const after = p.end !== null && p.end > to ? "  (still running when the prompt arrived: behind it)" : "";
    return `  +${(p.start - from).toFixed(1).padStart(6)} ms  ${ran.padStart(6)} ms  git ${p.command}${after}`;
  });
}
