/**
 * Files a later turn put under .gitignore. A snapshot never holds an ignored file, so when turn 1
 * makes gen.txt and turn 2 ignores it, gen.txt is on disk in no tree: a rewind to turn 0 would
 * put the old .gitignore back and leave gen.txt behind, untracked — the files would not be turn
 * 0's. These are such files that the target turn neither holds nor ignores and whose content is
 * still exactly what a snapshot of the session recorded (so they are the session's, not the
 * user's): the rewind deletes them, and its record keeps them so that --undo writes them back.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Turn } from "../store/manifest-schema.js";
import { errorMessage } from "../base/errors.js";
import * as git from "../snapshot/git.js";
import { ignoredInTree } from "../snapshot/ignored-in-tree.js";
import { whatIsOnDisk, type Entry } from "./work-tree-switch.js";

/** A file a rewind deleted that no tree can hold: path (git's bytes), mode and blob. */
export type HiddenFile = Entry;

/** `changes`: from the captured tree to the target. Returns deletions to add to them. */
export async function unhiddenFiles(
  root: string,
  f: { target: Turn; later: Turn[]; changes: git.TreeChange[]; scratch: string },
): Promise<git.TreeChange[]> {
  // Only a different .gitignore at the target can make an ignored file visible there.
  if (!f.changes.some((c) => path.posix.basename(c.path) === ".gitignore")) return [];
  const touched = new Set(f.changes.map((c) => c.path));
  const seen = new Map<string, git.TreeChange>();
  const trees = [...new Set(f.later.map((t) => t.snapshot.tree))].filter((tree) => tree !== f.target.snapshot.tree);
  for (const tree of trees) {
    if (!(await git.objectExists(root, tree))) continue; // pruned: what it held is unknowable
    for (const c of await git.changedPaths(root, f.target.snapshot.tree, tree)) {
      if (c.status === "A" && !git.isSubmodule(c) && !touched.has(c.path)) seen.set(c.path, c); // the latest turn's copy wins
    }
  }
  const held = await holdingTheirBlobs(root, [...seen.values()]);
  const stillIgnored = await ignoredInTree(
    root,
    f.target.snapshot.tree,
    held.map((c) => c.path),
    f.scratch,
  );
  return held
    .filter((c) => !stillIgnored.has(c.path))
    .map((c) => ({
      status: "D" as const,
      path: c.path,
      oldMode: c.mode,
      oldBlob: c.blob,
      mode: "000000",
      blob: "0".repeat(c.blob.length),
    }));
}

const onDisk = git.pathOnDisk;

/** The entries whose file on disk holds exactly them. */
async function holdingTheirBlobs<T extends Entry>(root: string, entries: T[]): Promise<T[]> {
  const found = await whatIsOnDisk(root, entries);
  return entries.filter((_, i) => found[i] === "held");
}

/** Is the folder a file would go in inside the work tree (no symlinked folder leading elsewhere)? */
async function folderInside(root: string, rel: string): Promise<boolean> {
  const parent = await fs.realpath(onDisk(root, path.posix.dirname(rel))).catch(() => null);
  const top = await fs.realpath(root);
  return parent !== null && (parent.toString() === top || parent.toString().startsWith(`${top}/`));
}

/** An interrupted rewind, finished: delete the hidden files that still hold what the session recorded. */
export async function removeHidden(root: string, files: HiddenFile[]): Promise<void> {
  for (const file of await holdingTheirBlobs(root, files)) {
    if (await folderInside(root, file.path)) await fs.rm(onDisk(root, file.path), { force: true });
  }
}

/**
 * After an undo: write back the files the rewind deleted that its backup tree could not hold.
 * Never overwrites what is there again, never writes through a symlinked folder; returns what it
 * could not write back (the undo itself is done), with why.
 */
export async function restoreHidden(root: string, files: HiddenFile[]): Promise<string[]> {
  const missed: string[] = [];
  for (const file of files) {
    const where = onDisk(root, file.path);
    if (await fs.lstat(where).catch(() => null)) continue;
    try {
      await fs.mkdir(onDisk(root, path.posix.dirname(file.path)), { recursive: true });
      if (!(await folderInside(root, file.path))) throw new Error("its folder leads outside the work tree");
      const content = await git.readBlob(root, file.blob);
      if (file.mode === "120000") await fs.symlink(content, where);
      else await fs.writeFile(where, content, { mode: file.mode === "100755" ? 0o755 : 0o644 });
    } catch (error) {
      missed.push(`${git.shownPath(file.path)} (${errorMessage(error)})`);
    }
  }
  return missed;
}
