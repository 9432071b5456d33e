/**
 * `nudge session gc`: the plan for everything old or left over — sessions not used for longer
 * than the age, rewind records and backup refs older than it (never the one `--undo` restores),
 * sessions an import replaced and set aside longer ago than it, and what nudge itself left
 * behind. Live sessions are never touched.
 */
import { promises as fs } from "node:fs";
import { diskUsage } from "../store/disk-usage.js";
import path from "node:path";
import { pathExists } from "../base/file-exists.js";
import { bundleFiles, type Store } from "../store/store.js";
import { BACKUP_REFS } from "../snapshot/snapshotter.js";
import type { BackupRefRemoval, HousekeepingPlan, Leftover } from "./housekeeping-plan.js";
import { recordTime, unnamedBackups } from "../time-travel/rewind-records.js";
import { heldText, readStoreView, recordRemovals, sessionRemoval, type StoreView } from "./session-removal.js";
import { findLeftovers } from "./store-leftovers.js";
import { remoteViewLeftovers, syncLeftover } from "./sync-leftovers.js";

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
    const held = view.held.get(id);
    if (live)
      kept.push(
        `session ${id}: ${live.orphanPid === null ? "it is being recorded" : `the claude of its crashed nudge still runs (pid ${live.orphanPid})`}`,
      );
    else if (held) kept.push(`session ${id}: ${heldText(held)}`);
    // `--undo` of a rewind that moved the conversation too writes the session's header.
    else if (id === undoSession) kept.push(`session ${id}: \`nudge session rewind --undo\` goes back to its rewind`);
    else chosen.push(id);
  }
  return chosen;
}

/** Backup refs no rewind record names (what a failed switch found, or a ref whose record was removed by hand). */
function orphanBackups(view: StoreView, cutoff: number): BackupRefRemoval[] {
  const old = view.refs.filter((r) => r.ref.startsWith(BACKUP_REFS) && r.time * 1000 < cutoff);
  return unnamedBackups(old, view.records).map(({ ref, commit, at }) => ({ ref, commit, at }));
}

/**
 * Sessions an import replaced (`session import --force`), set aside in import-backups/ with
 * their refs under refs/nudge/import-backups/<folder>/: they go with the age, like a backup.
 */
async function oldImportBackups(store: Store, view: StoreView, cutoff: number): Promise<Leftover[]> {
  const root = path.join(store.dir, "import-backups");
  const found: Leftover[] = [];
  for (const name of await fs.readdir(root).catch(() => [] as string[])) {
    const dir = path.join(root, name);
    const stat = await fs.lstat(dir).catch(() => null);
    if (!stat?.isDirectory() || !(stat.mtimeMs < cutoff)) continue;
    const prefix = `refs/nudge/import-backups/${name}/`;
    const refs = view.refs.filter((r) => r.ref.startsWith(prefix)).map(({ ref, commit }) => ({ ref, commit }));
    found.push({
      kind: "import-backup",
      path: dir,
      what: `a session an import replaced, set aside ${stat.mtime.toISOString().slice(0, 10)}`,
      bytes: await diskUsage(dir),
      refs,
    });
  }
  return found;
}

/**
 * Snapshot refs of sessions this store has no folder for: never removed (a session kept in
 * another NUDGE_STORE has its refs in the same repository), only pointed out.
 */
async function strayRefs(store: Store, view: StoreView): Promise<string | null> {
  const folders = new Set(
    (await fs.readdir(path.join(store.dir, "sessions")).catch(() => [] as string[])).map((n) =>
      n.replace(/^\.|\.(building|removing)$/g, ""),
    ),
  );
  const ids = new Set<string>();
  for (const { ref } of view.refs) {
    const id = /^refs\/nudge\/sessions\/([^/]+)$/.exec(ref)?.[1] ?? /^refs\/nudge\/([^/]+)\/\d+$/.exec(ref)?.[1];
    if (id && id !== "sessions" && id !== "backup" && !folders.has(id)) ids.add(id);
  }
  if (ids.size === 0) return null;
  return `the snapshot refs of ${ids.size} session${ids.size === 1 ? "" : "s"} not in this store (kept in another NUDGE_STORE, or its folder was deleted by hand): git for-each-ref refs/nudge/ lists them, git update-ref -d <ref> deletes one`;
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
    if (await pathExists(bundleFiles(u.dir).manifest))
      kept.push(`session ${path.basename(u.dir)}: ${u.why} (remove it with: nudge session rm ${path.basename(u.dir)})`);
  }
  const stray = await strayRefs(store, view);
  if (stray) kept.push(stray);
  return {
    sessions,
    records: records.records,
    backupRefs: orphanBackups(view, cutoff),
    leftovers: [
      ...leftovers.leftovers,
      ...(await oldImportBackups(store, view, cutoff)),
      ...[await syncLeftover(store)].filter((l) => l !== null),
      ...(await remoteViewLeftovers(store)),
    ],
    kept: [...kept, ...records.kept, ...leftovers.kept],
  };
}
