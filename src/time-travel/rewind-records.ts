/**
 * The rewind records and backup refs as housekeeping sees them: every record with the file it
 * lives in, and which record `nudge session rewind --undo` would restore (never removed).
 */
import path from "node:path";
import type { Store } from "../store/store.js";
import type * as git from "../snapshot/git.js";
import { allRecords, isSettled, lastRewind, lastRewindIn, rewindsDir, type RewindRecord } from "./rewind-log.js";

export interface StoredRecord {
  record: RewindRecord;
  /** The record's JSON file. */
  file: string;
  /** Files that go with it (the copy of the user's index a --reset-head keeps for the undo). */
  companions: string[];
}

/**
 * A settled record (rewind-log.ts) is finished with, and only the newest applied one is still an
 * undo target. Any other state (one written by a newer nudge, or an operation still in progress)
 * is left alone.
 */
export { isSettled };

/** Every readable record, newest first. Unreadable ones are skipped: nudge never removes what it cannot read. */
export async function storedRecords(store: Store): Promise<StoredRecord[]> {
  const dir = rewindsDir(store);
  return (await allRecords(store)).map((record) => {
    const copy = record.before.indexCopy;
    // The index copy is only ever ours if it sits in the rewinds folder itself.
    const companions = copy && path.dirname(path.resolve(copy)) === dir ? [path.resolve(copy)] : [];
    return { record, file: path.join(dir, `${record.stamp}.json`), companions };
  });
}

/** The stamp of the record `--undo` restores (as rewind-log decides it), or null. */
export async function undoTarget(store: Store): Promise<string | null> {
  return (await lastRewind(store))?.stamp ?? null;
}

/** The same, from the records already read. */
export function undoTargetIn(records: StoredRecord[]): string | null {
  return lastRewindIn(records.map((r) => r.record))?.stamp ?? null;
}

/** Backup refs no record names (what a failed switch found, or a ref whose record was removed by hand), with their time. */
export function unnamedBackups(
  refs: git.RefTip[],
  records: StoredRecord[],
): Array<{ ref: string; commit: string; at: string; time: number }> {
  const named = new Set(records.map((r) => r.record.backup.ref));
  return refs
    .filter((r) => !named.has(r.ref))
    .map((r) => ({ ref: r.ref, commit: r.commit, time: r.time, at: new Date(r.time * 1000).toISOString() }));
}

/** When a record was written, in epoch milliseconds (its `at`, else the time in its stamp). */
export function recordTime(record: RewindRecord): number {
  const at = Date.parse(record.at);
  if (!Number.isNaN(at)) return at;
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(\d{3})/.exec(record.stamp);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!) : 0;
}
