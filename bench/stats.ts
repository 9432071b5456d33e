/** Small helpers: medians, percentiles, timing a whole process, formatting ratios. */
import { execFile } from "node:child_process";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0..100); NaN for no values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const nowNs = () => process.hrtime.bigint();
export const msSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

export interface ProcessTiming {
  ms: number;
  stdout: string;
}

/**
 * A whole process, wall time from launch to exit, launched the cheapest way node has (execFile:
 * no shell, no wrapper), for nudge and its baselines alike.
 */
export function timeProcess(
  file: string,
  args: string[],
  o: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ProcessTiming> {
  return new Promise((resolve, reject) => {
    const start = nowNs();
    execFile(file, args, { cwd: o.cwd, env: o.env ?? process.env, maxBuffer: 1 << 30 }, (error, stdout, stderr) => {
      const ms = msSince(start);
      if (error) reject(new Error(`${file} ${args.join(" ")} failed: ${error.message}\n${stderr}`));
      else resolve({ ms, stdout });
    });
  });
}

/**
 * Alternate the given measurements round by round (the order rotating each round, so none always
 * runs first), after one warm-up round; returns every sample per name.
 */
export async function alternate(
  rounds: number,
  runs: Record<string, (round: number) => Promise<number>>,
): Promise<Record<string, number[]>> {
  const names = Object.keys(runs);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = -1; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + Math.max(round, 0)) % names.length]!;
      const ms = await runs[name]!(round);
      if (round >= 0) samples[name]!.push(ms);
    }
  }
  return samples;
}

export const fmtMs = (ms: number) =>
  ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
export const fmtRatio = (r: number) => `${r.toFixed(2)}×`;
export const fmtBytes = (b: number) =>
  Math.abs(b) >= 1024 * 1024
    ? `${(b / 1024 / 1024).toFixed(1)} MB`
    : Math.abs(b) >= 1024
      ? `${(b / 1024).toFixed(1)} KB`
      : `${Math.round(b)} B`;

export const progress = (text: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
