/**
 * Per-turn snapshots of the work tree as git trees, through a private index so the user's HEAD,
 * index, branches and stash are never touched. Each snapshot is a commit kept alive by a hidden
 * ref (refs/nudge/<session>/<n>); nothing is copied, git stores only what changed.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../errors.js";
import * as git from "./git.js";
import { patchStats, sha256, type PatchStats } from "./patch-stats.js";

export interface SnapshotResult {
  tree: string;
  /** Files git could not read: left as they were in the previous snapshot (or out, if new). */
  unreadable: string[];
  commit: string;
  ref: string;
  head: string | null;
  patch: Buffer;
  patchSha256: string;
  stats: PatchStats;
}

export function snapshotRef(sessionId: string, n: number): string {
  return `refs/nudge/${sessionId}/${n}`;
}

/**
 * A recorded tree must still be in the repository before anything is read from it: once a
 * session's refs/nudge refs are deleted, `git gc` prunes its snapshots. `what` names it.
 */
export async function requireTree(root: string, tree: string, what: string): Promise<void> {
  if (await git.objectExists(root, tree)) return;
  throw new UserError(
    `${what} is gone from the repository`,
    "its refs/nudge refs were deleted and git gc pruned it, or the session was imported without its objects",
  );
}

/**
 * Start the private index as a copy of the user's, at every capture. Two reasons: what counts as
 * tracked must be what the user's git says (a file only nudge once staged must not stay
 * "tracked" after the user ignores it), and the copy hands over git's stat cache, so unchanged
 * files are not hashed again.
 */
export async function seedPrivateIndex(root: string, indexFile: string): Promise<void> {
  await fs.mkdir(path.dirname(indexFile), { recursive: true });
  try {
    await fs.copyFile(await git.indexPath(root), indexFile);
  } catch {
    // No index yet (a fresh repository): an empty private index is the right start.
    await fs.rm(indexFile, { force: true });
  }
}

export interface TakeSnapshotInput {
  root: string;
  indexFile: string;
  ref: string;
  /** Parent commit of the snapshot: the previous turn's snapshot, or HEAD for turn 0. */
  parent: string | null;
  /** The tree the patch is taken from: the previous turn's, or the base commit's. */
  previousTree: string;
  message: string;
  /** Folders left out (nudge's and claude's own files inside the work tree). */
  exclude?: string[];
}

export async function takeSnapshot(input: TakeSnapshotInput): Promise<SnapshotResult> {
  const { root, indexFile } = input;
  // HEAD does not depend on the staging: read it alongside, off the critical path.
  const head = git.headCommit(root);
  await seedPrivateIndex(root, indexFile);
  let staged: { tree: string; unreadable: string[] };
  try {
    staged = await git.stageAll(root, indexFile, input.exclude);
  } catch {
    // A private index git cannot use (a copied split or sparse index, a version mismatch):
    // start it over from scratch rather than lose the turn.
    await fs.rm(indexFile, { force: true });
    staged = await git.stageAll(root, indexFile, input.exclude);
  }
  const { tree, unreadable } = staged;
  // The patch needs only the two trees: compute it while the commit and ref are written.
  const patch = tree === input.previousTree ? Promise.resolve(Buffer.alloc(0)) : git.diffTrees(root, input.previousTree, tree);
  const commit = await git.commitTree(root, tree, input.parent ? [input.parent] : [], input.message);
  await git.updateRefs(root, [{ ref: input.ref, commit }]);
  const bytes = await patch;
  return { tree, unreadable, commit, ref: input.ref, head: await head, patch: bytes, patchSha256: sha256(bytes), stats: patchStats(bytes) };
}
