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
import type { Turn } from "../bundle/manifest-schema.js";
import { errorMessage } from "../errors.js";
import * as git from "../snapshot/git.js";

export interface HiddenFile {
  path: string;
  mode: string;
  blob: string;
}

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
  const onDisk = await holdingTheirBlobs(root, [...seen.values()]);
  const stillIgnored = await git.ignoredInTree(root, f.target.snapshot.tree, onDisk.map((c) => c.path), f.scratch);
  return onDisk
    .filter((c) => !stillIgnored.has(c.path))
    .map((c) => ({ status: "D" as const, path: c.path, oldMode: c.mode, oldBlob: c.blob, mode: "000000", blob: "0".repeat(c.blob.length) }));
}

/** A path of the work tree as bytes: `rel` is git's bytes (latin1, one character per byte), the root is the file system's. */
function onDisk(root: string, rel: string): Buffer {
  return Buffer.concat([Buffer.from(`${root}/`), Buffer.from(rel, "latin1")]);
}

/** The changes whose file on disk holds exactly their new side (content as git records it, and mode): one git process. */
async function holdingTheirBlobs(root: string, changes: Array<Pick<git.TreeChange, "path" | "mode" | "blob">>): Promise<typeof changes> {
  const stats = await Promise.all(changes.map((c) => fs.lstat(onDisk(root, c.path)).catch(() => null)));
  const regular = changes.filter((c, i) => stats[i]?.isFile() && c.mode === (stats[i].mode & 0o111 ? "100755" : "100644"));
  const ids = await git.hashFiles(root, regular.map((c) => c.path));
  const held = new Set<(typeof changes)[number]>();
  for (const [i, c] of regular.entries()) {
    // Through git's filters first; the raw bytes where that differs (text=auto keeps CRLF in a blob that has it).
    if (ids[i] === c.blob || git.blobId(await fs.readFile(onDisk(root, c.path)), c.blob) === c.blob) held.add(c);
  }
  for (const [i, c] of changes.entries()) {
    if (c.mode === "120000" && stats[i]?.isSymbolicLink() && git.blobId(await fs.readlink(onDisk(root, c.path), { encoding: "buffer" }), c.blob) === c.blob) held.add(c);
  }
  return changes.filter((c) => held.has(c));
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
