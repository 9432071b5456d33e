/** Generated repositories for the benchmarks: `count` small files in nested folders, committed. */
import { execa } from "execa";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export async function generateRepo(count: number): Promise<string> {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), `nudge-bench-${count}-`)));
  await execa("git", ["init", "-q", "-b", "main"], { cwd: dir });
  for (const [k, v] of [["user.name", "bench"], ["user.email", "bench@example.com"], ["gc.auto", "0"], ["commit.gpgSign", "false"]]) {
    await execa("git", ["config", k!, v!], { cwd: dir });
  }
  // 100 files per folder, 100 folders per parent: the shape of a real source tree, not one flat dir.
  for (let i = 0; i < count; i++) {
    const folder = path.join(dir, "src", `m${Math.floor(i / 10_000)}`, `d${Math.floor(i / 100) % 100}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `f${i}.ts`), `export const v${i} = ${i};\n// ${"x".repeat(i % 200)}\n`);
  }
  writeFileSync(path.join(dir, ".gitignore"), "node_modules/\n*.log\n");
  await execa("git", ["add", "-A"], { cwd: dir });
  await execa("git", ["commit", "-q", "-m", "generated"], { cwd: dir });
  return dir;
}

/** A small change, like one a turn makes: edit one file, add one. */
export function smallChange(dir: string, turn: number): void {
  writeFileSync(path.join(dir, "src", "m0", "d0", "f0.ts"), `export const v0 = ${turn};\n`);
  writeFileSync(path.join(dir, `new-${turn}.ts`), `export const t = ${turn};\n`);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * git as the baseline of a ratio, launched the cheapest way Node has (the way nudge launches
 * its own git calls), so that the baseline is not inflated by a wrapper's overhead.
 */
export const baselineGit = (cwd: string, ...args: string[]) => promisify(execFile)("git", args, { cwd, maxBuffer: 1 << 30 });
