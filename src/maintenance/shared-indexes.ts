/**
 * nudge keeps its private indexes split (core.splitIndex), so git writes `sharedindex.<id>` files
 * into the git dir of the work tree each was made for, and nudge never expires them (another
 * index may use the very same file: they are named by their content). These find the ones no
 * index refers to any more. An index is any file git may use as one: the user's index of every
 * worktree, anything else in a git dir that starts like an index (index.lock, other tools' own
 * indexes), nudge's private indexes, and the copies of the user's index kept for `--undo`.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Store } from "../store/store.js";
import { sharedIndexOf } from "../snapshot/private-index.js";

const SHARED_INDEX = /^sharedindex\.[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The repository's git dirs: the common one and each linked worktree's own. */
async function gitDirs(store: Store): Promise<string[]> {
  const linked = path.join(store.commonDir, "worktrees");
  const names = await fs.readdir(linked, { withFileTypes: true }).catch(() => []);
  return [store.commonDir, ...names.filter((d) => d.isDirectory()).map((d) => path.join(linked, d.name))];
}

/** Every shared index file in the repository's git dirs, with its mtime (git freshens it when it uses it). */
export async function sharedIndexFiles(store: Store): Promise<Array<{ file: string; mtimeMs: number; bytes: number }>> {
  const found: Array<{ file: string; mtimeMs: number; bytes: number }> = [];
  for (const dir of await gitDirs(store)) {
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => SHARED_INDEX.test(n))) {
      const stat = await fs.lstat(path.join(dir, name)).catch(() => null);
      if (stat?.isFile()) found.push({ file: path.join(dir, name), mtimeMs: stat.mtimeMs, bytes: stat.size });
    }
  }
  return found;
}

/** Whether a file starts as an index does ("DIRC"): only those can point to a shared index. */
async function looksLikeIndex(file: string): Promise<boolean> {
  const handle = await fs.open(file, "r").catch(() => null);
  if (!handle) return false;
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && head.toString("latin1") === "DIRC";
  } finally {
    await handle.close();
  }
}

async function filesIn(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(dir, e.name));
}

/**
 * The shared index files some index refers to, as full paths. `going`: index files about to be
 * removed, which no longer count.
 */
export async function sharedIndexesInUse(store: Store, going: Set<string> = new Set()): Promise<Set<string>> {
  const dirs = await gitDirs(store);
  const candidates = [
    ...(await Promise.all(dirs.map(filesIn))).flat(),
    ...(await filesIn(path.join(store.dir, "index"))),
    ...(await filesIn(path.join(store.dir, "rewinds"))),
  ].filter((f) => !going.has(f) && !SHARED_INDEX.test(path.basename(f)));
  const used = new Set<string>();
  for (const file of candidates) {
    if (!(await looksLikeIndex(file))) continue;
    // The link names a file in the git dir of the work tree the index belongs to; ask each.
    for (const dir of dirs) {
      const name = await sharedIndexOf(file, dir);
      if (name) used.add(path.join(dir, name));
    }
  }
  return used;
}
