/**
 * `nudge session gc`: the plan for everything old or left over — sessions not used for longer
 * than the age, rewind records and backup refs older than it (never the one `--undo` restores),
 * and what nudge itself left behind. Live sessions are never touched.
 */
import path from "node:path";
import { pathExists } from "../file-exists.js";
import { bundleFiles, type Store } from "../bundle/store.js";
import { BACKUP_REFS } from "../snapshot/snapshotter.js";
import type { BackupRefRemoval, HousekeepingPlan } from "./housekeeping-plan.js";
import { recordTime } from "./rewind-records.js";
import { readStoreView, recordRemovals, sessionRemoval, type StoreView } from "./session-removal.js";
import { findLeftovers } from "./store-leftovers.js";

export interface GcOptions {
  /** Sessions unused, and records and backups made, longer ago than this go. */
  olderThanMs: number;
  now?: number;
}

/** Old sessions that may go: not live, and not the session of the rewind `--undo` restores. */
function oldSessions(view: StoreView, cutoff: number, kept: string[]): string[] {
  const undoSession = view.records.find((r) => r.record.stamp === view.undoStamp)?.record.sessionId ?? null;
  const chosen: string[] = [];
  for (const s of view.sessions) {
    const id = s.header.id;
    if (!(Date.parse(s.header.updatedAt) < cutoff)) continue;
    const live = view.live.find((l) => l.id === id);
    if (live) kept.push(`session ${id}: ${live.orphanPid === null ? "it is being recorded" : `the claude of its crashed nudge still runs (pid ${live.orphanPid})`}`);
    // `--undo` of a rewind that moved the conversation too writes the session's header.
    else if (id === undoSession) kept.push(`session ${id}: \`nudge session rewind --undo\` goes back to its rewind`);
    else chosen.push(id);
  }
  return chosen;
}

/** Backup refs no rewind record names (edits kept before an undo, what a failed switch found). */
function orphanBackups(view: StoreView, cutoff: number): BackupRefRemoval[] {
  const named = new Set(view.records.map((r) => r.record.backup.ref));
  return view.refs
    .filter((r) => r.ref.startsWith(BACKUP_REFS) && !named.has(r.ref) && r.time * 1000 < cutoff)
    .map((r) => ({ ref: r.ref, commit: r.commit, at: new Date(r.time * 1000).toISOString() }));
}

export async function planGc(store: Store, o: GcOptions): Promise<HousekeepingPlan> {
  const now = o.now ?? Date.now();
  const cutoff = now - o.olderThanMs;
  const view = await readStoreView(store);
  const kept: string[] = [];
  const ids = oldSessions(view, cutoff, kept);
  const sessions = await Promise.all(ids.map((id) => sessionRemoval(store, view, id)));
  const removing = new Set(ids);
  for (const s of sessions) s.forks = s.forks.filter((f) => !removing.has(f.id));
  const records = recordRemovals(view, (r) => removing.has(r.record.sessionId) || recordTime(r.record) < cutoff);
  const going = new Set(sessions.flatMap((s) => s.indexFiles));
  const leftovers = await findLeftovers(store, view, { removing, going, now });
  for (const u of view.unreadable) {
    // A folder without a manifest is a leftover (or kept) already; one with a damaged manifest is the user's call.
    if (await pathExists(bundleFiles(u.dir).manifest)) kept.push(`session ${path.basename(u.dir)}: ${u.why} (remove it with: nudge session rm ${path.basename(u.dir)})`);
  }
  return {
    sessions,
    records: records.records,
    backupRefs: orphanBackups(view, cutoff),
    leftovers: leftovers.leftovers,
    kept: [...kept, ...records.kept, ...leftovers.kept],
  };
}
