/**
 * Where nudge's own time goes inside given windows, from a V8 CPU profile (node --cpu-prof).
 * The profile's clock is the same monotonic clock as process.hrtime (microseconds), so windows
 * taken by the stand-in claude can be laid over it.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface TimeShare {
  name: string;
  ms: number;
}

export interface WindowProfile {
  /** Milliseconds of samples inside the windows, in all. */
  totalMs: number;
  /** By kind: waiting (idle), garbage collection, spawning processes, nudge's code by file, libraries. */
  byKind: TimeShare[];
  /** The busiest functions (self time), with their file. */
  topFunctions: TimeShare[];
}

/** The one profile node wrote into `dir` (the main thread's; the largest file if several). */
export function readProfile(dir: string): Profile {
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  const largest = files
    .map((f) => path.join(dir, f))
    .sort((a, b) => readFileSync(b).length - readFileSync(a).length)[0]!;
  return JSON.parse(readFileSync(largest, "utf8")) as Profile;
}

function kindOf(frame: ProfileNode["callFrame"]): string {
  const { functionName, url } = frame;
  if (functionName === "(idle)") return "idle: waiting (for git, the disk, claude)";
  if (functionName === "(garbage collector)") return "garbage collection";
  if (functionName === "(program)") return "V8/native (program)";
  if (url.includes("child_process")) return "node: spawning processes";
  const dist = /\/dist\/(.+\.js)$/.exec(url);
  if (dist) return `nudge: ${dist[1]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `library: ${pkg[1]}`;
  if (url.startsWith("node:")) return `node: ${url.slice(5).replace(/^internal\//, "")}`;
  return functionName ? `native: ${functionName}` : "other";
}

/** Self time inside the windows ([fromUs, toUs] on the monotonic clock, microseconds). */
export function profileWindows(profile: Profile, windows: Array<{ fromUs: number; toUs: number }>): WindowProfile {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byKind = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    // A sample stands for the interval up to the next one.
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (!windows.some((w) => t >= w.fromUs && t < w.toUs)) continue;
    const frame = nodes.get(profile.samples[i]!)!.callFrame;
    total += dt;
    const kind = kindOf(frame);
    byKind.set(kind, (byKind.get(kind) ?? 0) + dt);
    if (!kind.startsWith("idle")) {
      const where = frame.url ? `${frame.url.split("/").slice(-1)[0]}:${frame.lineNumber + 1}` : "";
      const name = `${frame.functionName || "(anonymous)"} ${where}`.trim();
      byFunction.set(name, (byFunction.get(name) ?? 0) + dt);
    }
  }
  const sorted = (m: Map<string, number>) =>
    [...m.entries()].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
  return { totalMs: total, byKind: sorted(byKind), topFunctions: sorted(byFunction).slice(0, 15) };
}
