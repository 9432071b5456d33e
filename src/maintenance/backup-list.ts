/**
 * `nudge session backups`: what `nudge session rewind --undo` can go back to, like `git reflog`:
 * every rewind record, newest first, and the backup refs no record names (edits kept before an
 * undo, what a failed switch found), whose files can be copied back with git.
 */
import type { Store } from "../store/store.js";
import * as git from "../snapshot/git.js";
import { BACKUP_REFS } from "../snapshot/snapshotter.js";
import { storedRecords, undoTargetIn, unnamedBackups } from "../time-travel/rewind-records.js";

interface BackupEntry {
  stamp: string;
  at: string;
  /** rewind, or (records of newer nudges) undo. */
  kind: string;
  sessionId: string;
  turn: number;
  scope: string;
  status: string;
  /** The ref holding the state from before; `exists` false once it was deleted by hand. */
  ref: string;
  exists: boolean;
  /** Files the operation changed (from the backup to what it wrote); null when that cannot be told. */
  filesChanged: number | null;
  /** The one `nudge session rewind --undo` restores. */
  undo: boolean;
  /** A fork put in place: the fork session it made. */
  fork: string | null;
  /** A fork put in place, whether or not its session was made (cut off, failed, rolled back: none). */
  forking: boolean;
}

interface OtherBackup {
  ref: string;
  commit: string;
  at: string;
}

export interface BackupListing {
  entries: BackupEntry[];
  others: OtherBackup[];
}

export async function listBackups(store: Store): Promise<BackupListing> {
  const root = store.repoRoot;
  const [records, refs] = await Promise.all([storedRecords(store), git.listRefs(root, [BACKUP_REFS])]);
  const target = undoTargetIn(records);
  const refsPresent = new Set(refs.map((r) => r.ref));
  // The files each rewind changed, counted in two git processes for all of them (a tree pruned since: not counted).
  const trees = [
    ...new Set(records.flatMap(({ record }) => (record.after ? [record.backup.tree, record.after.tree] : []))),
  ];
  const found = await git.objectsExist(root, trees, "tree");
  const present = new Set(trees.filter((_, i) => found[i]));
  const counted = records.map(({ record }) =>
    record.after && present.has(record.backup.tree) && present.has(record.after.tree)
      ? ([record.backup.tree, record.after.tree] as [string, string])
      : null,
  );
  const counts = await filesChanged(
    root,
    counted.filter((p) => p !== null),
  );
  const entries: BackupEntry[] = [];
  let next = 0;
  for (const [i, { record }] of records.entries()) {
    const filesChanged = counted[i] ? counts[next++]! : null;
    entries.push({
      stamp: record.stamp,
      at: record.at,
      kind: (record as { kind?: string }).kind ?? "rewind",
      sessionId: record.sessionId,
      turn: record.turn,
      scope: record.scope,
      status: record.status,
      ref: record.backup.ref,
      exists: refsPresent.has(record.backup.ref),
      filesChanged,
      undo: record.stamp === target,
      fork: record.fork ?? null,
      forking: record.forking || record.fork !== null,
    });
  }
  const others = unnamedBackups(refs, records)
    .sort((a, b) => b.time - a.time || b.ref.localeCompare(a.ref))
    .map(({ ref, commit, at }) => ({ ref, commit, at }));
  return { entries, others };
}

/**
 * The counts for all pairs at once. If git cannot diff them all (a tree below one of them pruned
 * or damaged, an id that names no tree), each half on its own, down to the pair that fails, which
 * is "cannot tell": a few more git processes for each bad record, never one per record.
 */
async function filesChanged(root: string, pairs: Array<[string, string]>): Promise<Array<number | null>> {
  if (pairs.length === 0) return [];
  try {
    return await git.changedFileCounts(root, pairs);
  } catch {
    if (pairs.length === 1) return [null];
    const half = pairs.length >> 1;
    return [...(await filesChanged(root, pairs.slice(0, half))), ...(await filesChanged(root, pairs.slice(half)))];
  }
}
