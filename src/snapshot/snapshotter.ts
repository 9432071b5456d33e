/**
 * What turns a captured tree into a kept snapshot: a commit (parent: the session's previous
 * snapshot, so one ref per session keeps its whole history alive), the session's ref moved to
 * it, and the patch from the state before. The user's HEAD, index, branches and stash are never
 * touched; git stores only what changed.
 */
import { promises as fs } from "node:fs";
import { UserError } from "../base/errors.js";
import type { RecordingGit } from "./git-channels.js";
import * as git from "./git.js";
import { parseSnapshotMessage } from "./snapshot-message.js";
import { patchStats, sha256, type PatchStats } from "./patch-stats.js";

/** The one hidden ref per session: it points at the newest snapshot, whose parents are all the others. */
export function sessionRef(sessionId: string): string {
  return `refs/nudge/sessions/${sessionId}`;
}

/** Where nudge keeps the commits of rewind backups (they are never part of a session's chain). */
export const BACKUP_REFS = "refs/nudge/backup/";

/**
 * A recorded tree must still be in the repository before anything is read from it: once a
 * session's refs/nudge refs are deleted, `git gc` prunes its snapshots. `what` names it.
 */
export async function requireTree(root: string, tree: string, what: string): Promise<void> {
  if (await git.objectExists(root, tree)) return;
  throw treeGone(what);
}

/** The refusal of `requireTree`, for a caller that asked git itself (with other objects, in one process). */
export function treeGone(what: string): UserError {
  return new UserError(
    `${what} is gone from the repository`,
    "its refs/nudge refs were deleted and git gc pruned it, or the session was imported without its objects; nothing was changed (another export of the session can restore it; git fsck --lost-found may still find it)",
  );
}

/**
 * The turns the session's ref holds past `lastCommit` (the last turn its journal saved): none
 * unless the journal lost them, or nudge stopped between a turn's snapshot and its record.
 * Recording on from `lastCommit` would move the ref back over them and lose them at the next gc.
 */
export async function turnsPast(root: string, sessionId: string, lastCommit: string): Promise<number[]> {
  const tip = await git.refCommit(root, sessionRef(sessionId));
  if (!tip || tip === lastCommit) return [];
  return (await git.commitChain(root, tip, lastCommit)).flatMap((c) => {
    const said = parseSnapshotMessage(c.message);
    return said?.kind === "turn" ? [said.n] : [];
  });
}

/** Keep a captured tree as a commit on the session's chain, and point the session's ref at it (`via`: a recording's own update-ref). */
export async function keepSnapshot(
  root: string,
  o: { tree: string; parent: string | null; message: string; ref: string },
  via?: RecordingGit,
): Promise<string> {
  const commit = await git.commitTree(root, o.tree, o.parent ? [o.parent] : [], o.message);
  if (via) await via.updateRef(o.ref, commit);
  else await git.updateRefs(root, [{ ref: o.ref, commit }]);
  return commit;
}

export interface Patch extends PatchStats {
  bytes: Buffer;
  sha256: string;
  /** Files that left the tree because an ignore rule now covers them, though they are still on disk. */
  nowIgnored: string[];
}

/**
 * The patch from one tree to another, byte for byte. Binary files are named by their object ids
 * (`git apply` takes them from the repository, where the snapshots keep them) rather than copied
 * in base85: a one-byte change to a 50 MB file costs a few hundred bytes, not 70 MB.
 */
export async function patchBetween(root: string, from: string, to: string, via?: RecordingGit): Promise<Patch> {
  if (from === to)
    return { bytes: Buffer.alloc(0), sha256: sha256(Buffer.alloc(0)), nowIgnored: [], ...patchStats(Buffer.alloc(0)) };
  const { patch: bytes, changes } = await (via ? via.patchAndChanges(from, to) : git.patchAndChanges(root, from, to));
  // A file gone from the snapshot but still on disk was not deleted: an ignore rule took it out.
  // (A rename's old path is gone from the snapshot too.)
  const gone = changes
    .flatMap((c) => (c.oldMode === "160000" ? [] : c.status === "D" ? [c.path] : c.status === "R" ? [c.oldPath!] : []))
    .sort();
  const nowIgnored: string[] = [];
  for (const file of gone) {
    if (
      await fs.lstat(git.pathOnDisk(root, file)).then(
        () => true,
        () => false,
      )
    )
      nowIgnored.push(git.displayPath(file));
  }
  return { bytes, sha256: sha256(bytes), nowIgnored, ...patchStats(bytes) };
}
