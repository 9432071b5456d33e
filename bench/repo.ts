/**
 * Generated repositories for the benchmarks: `files` small source files in nested folders (100 to a
 * folder, 100 folders to a parent: the shape of a real source tree), committed in one pack by
 * `git fast-import` (as a cloned repository has it, and fast even at 100k files), then checked out.
 * Optionally a tracked 50 MB binary and untracked binaries that never change.
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { sleep } from "./stats.js";

const execFileAsync = promisify(execFile);

export interface RepoShape {
  files: number;
  /** A tracked binary of this many MB at assets/big.bin (random bytes: git cannot compress it). */
  trackedBinaryMB?: number;
  /** Untracked, not ignored binaries: this many MB in 30 MB files under media/. */
  untrackedBinaryMB?: number;
}

/** All temporary folders of this run live under one root, removed at the end. */
export const scratchRoot = realpathSync(mkdtempSync(path.join(os.tmpdir(), "nudge-bench-")));

export function scratchDir(name: string): string {
  return realpathSync(mkdtempSync(path.join(scratchRoot, `${name}-`)));
}

export async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await execFileAsync("git", args, { cwd, maxBuffer: 1 << 30 })).stdout;
}

function sourceFile(i: number): { path: string; content: string } {
  return {
    path: `src/m${Math.floor(i / 10_000)}/d${Math.floor(i / 100) % 100}/f${i}.ts`,
    content: `export const v${i} = ${i};\n// ${"x".repeat(i % 200)}\n`,
  };
}

/** Deterministic random bytes (the same repository every run, and in its twin). */
function binary(mb: number, seed: number): Buffer {
  const out = Buffer.alloc(mb * 1024 * 1024);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < out.length; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out.writeInt32LE(x | 0, i);
  }
  return out;
}

/** `dir`: where to make it (an empty or missing folder; a cached fixture's); by default a scratch folder of this run. */
export async function generateRepo(shape: RepoShape, dir = scratchDir(`repo-${shape.files}`)): Promise<string> {
  mkdirSync(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
  // gc.auto=0: no automatic repack in the middle of a measurement (nudge itself never runs gc).
  for (const [k, v] of [
    ["user.name", "bench"],
    ["user.email", "bench@example.com"],
    ["gc.auto", "0"],
    ["commit.gpgSign", "false"],
  ] as const) {
    await git(dir, "config", k, v);
  }
  const chunks: Buffer[] = [];
  const add = (file: string, content: Buffer | string) => {
    const bytes = typeof content === "string" ? Buffer.from(content) : content;
    chunks.push(Buffer.from(`M 100644 inline ${file}\ndata ${bytes.length}\n`), bytes, Buffer.from("\n"));
  };
  chunks.push(
    Buffer.from("commit refs/heads/main\ncommitter bench <bench@example.com> 1700000000 +0000\ndata 10\ngenerated\n"),
  );
  for (let i = 0; i < shape.files; i++) {
    const f = sourceFile(i);
    add(f.path, f.content);
  }
  add(".gitignore", "node_modules/\n*.log\n");
  if (shape.trackedBinaryMB) add("assets/big.bin", binary(shape.trackedBinaryMB, 1));
  chunks.push(Buffer.from("done\n"));
  await new Promise<void>((resolve, reject) => {
    const child = spawn("git", ["fast-import", "--quiet", "--done"], {
      cwd: dir,
      stdio: ["pipe", "ignore", "inherit"],
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`))));
    child.stdin.end(Buffer.concat(chunks));
  });
  await git(dir, "reset", "-q", "--hard", "main");
  if (shape.untrackedBinaryMB) {
    mkdirSync(path.join(dir, "media"));
    for (let i = 0, left = shape.untrackedBinaryMB; left > 0; i++, left -= 30) {
      writeFileSync(path.join(dir, "media", `clip-${i}.bin`), binary(Math.min(30, left), 10 + i));
    }
  }
  await settleIndex(dir);
  return dir;
}

/**
 * Files written in the same second as the index are "racily clean": git re-reads them on every
 * status until the index is written again later. A user's index is never in that state for long;
 * wait out the second and let `git status` rewrite it (it does when it finds racy entries).
 */
export async function settleIndex(dir: string): Promise<void> {
  await sleep(1100);
  await git(dir, "status", "--porcelain");
}
