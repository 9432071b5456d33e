/**
 * `nudge session rm`: the plan for removing sessions — each one's bundle, snapshot refs and
 * private index, and the rewind records (with their backups) made on it. Forks made from a
 * session keep working: a fork has its own ref to the snapshot it was made at, whose parents
 * are every earlier snapshot, so git keeps them for the fork.
 */
import path from "node:path";
import { UserError } from "../base/errors.js";
import { pathExists } from "../base/file-exists.js";
import { diskUsage } from "../store/disk-usage.js";
import { holderText, readLock, type LockInfo } from "../store/locks.js";
import {
  bundleDir,
  bundleFiles,
  heldLocks,
  listSessions,
  liveClaudes,
  readHeader,
  sessionLocks,
  resolveId,
  type LiveClaude,
  type ListedSession,
  type Store,
} from "../store/store.js";
import * as git from "../snapshot/git.js";
import { BACKUP_REFS, sessionRef } from "../snapshot/snapshotter.js";
import type { HousekeepingPlan, RecordRemoval, RefAt, SessionRemoval } from "./housekeeping-plan.js";
import { isSettled, storedRecords, undoTargetIn, type StoredRecord } from "../time-travel/rewind-records.js";

/** Everything a plan is computed from, read once. */
export interface StoreView {
  /** Every ref under refs/nudge/. */
  refs: git.RefTip[];
  sessions: ListedSession[];
  /** Session folders whose manifest could not be read. */
  unreadable: Array<{ dir: string; why: string }>;
  live: LiveClaude[];
  /** Sessions whose lock a live nudge process holds (recording, or another command working on them): not removed under it. */
  held: Map<string, LockInfo>;
  records: StoredRecord[];
  /** The record `--undo` restores. */
  undoStamp: string | null;
}

export async function readStoreView(store: Store): Promise<StoreView> {
  const unreadable: StoreView["unreadable"] = [];
  const [refs, sessions, locks, records] = await Promise.all([
    git.listRefs(store.repoRoot, ["refs/nudge/"]),
    listSessions(store, (dir, why) => unreadable.push({ dir, why })),
    sessionLocks(store),
    storedRecords(store),
  ]);
  return {
    refs,
    sessions,
    unreadable,
    live: await liveClaudes(store, locks),
    held: heldLocks(locks),
    records,
    undoStamp: undoTargetIn(records),
  };
}

/** A session's snapshot refs: its one ref, and the per-turn refs bundles made before the journal had. */
export function sessionRefsOf(view: StoreView, id: string): RefAt[] {
  return refsBySession(view).get(id) ?? [];
}

const bySession = new WeakMap<StoreView, Map<string, RefAt[]>>();

/** The refs under refs/nudge/ by the session they belong to, grouped once per view (a gc plans thousands of sessions). */
function refsBySession(view: StoreView): Map<string, RefAt[]> {
  let map = bySession.get(view);
  if (map) return map;
  map = new Map();
  for (const { ref, commit } of view.refs) {
    // refs/nudge/sessions/<id>, or refs/nudge/<id>/<n> of older bundles ("sessions" and "backup" are nudge's own folders, never a session's).
    const id = /^refs\/nudge\/sessions\/([^/]+)$/.exec(ref)?.[1] ?? /^refs\/nudge\/([^/]+)\/\d+$/.exec(ref)?.[1];
    if (!id || (ref !== sessionRef(id) && (id === "sessions" || id === "backup"))) continue;
    const list = map.get(id) ?? [];
    list.push({ ref, commit });
    map.set(id, list);
  }
  bySession.set(view, map);
  return map;
}

/** A private index of a session and the lock git may have left beside it. */
async function indexFilesOf(store: Store, id: string): Promise<string[]> {
  const file = path.join(store.dir, "index", id);
  const found: string[] = [];
  for (const candidate of [file, `${file}.lock`]) if (await pathExists(candidate)) found.push(candidate);
  return found;
}

const sessionMaps = new WeakMap<
  StoreView,
  { byDir: Map<string, ListedSession>; forksOf: Map<string, Array<{ id: string; turn: number }>> }
>();

/** The view's sessions by folder, and the forks made from each, found once per view. */
function sessionsOf(view: StoreView) {
  let maps = sessionMaps.get(view);
  if (maps) return maps;
  maps = { byDir: new Map(), forksOf: new Map() };
  for (const s of view.sessions) {
    if (!maps.byDir.has(s.dir)) maps.byDir.set(s.dir, s);
    const parent = s.header.parent;
    if (!parent) continue;
    const forks = maps.forksOf.get(parent.id) ?? [];
    forks.push({ id: s.header.id, turn: parent.turn });
    maps.forksOf.set(parent.id, forks);
  }
  sessionMaps.set(view, maps);
  return maps;
}

export async function sessionRemoval(store: Store, view: StoreView, id: string): Promise<SessionRemoval> {
  const dir = bundleDir(store, id);
  const found = sessionsOf(view).byDir.get(dir);
  const listed = found?.header.id === id ? found : undefined;
  let unreadable: string | null = null;
  if (!listed) {
    const why = await readHeader(dir).then(
      () => null,
      (error: Error) => error.message,
    );
    unreadable = why && !(await pathExists(bundleFiles(dir).manifest)) ? "it has no manifest.json" : why;
  }
  const header = listed?.header;
  return {
    id,
    dir,
    bytes: await diskUsage(dir),
    turns: header ? header.summary.turns : null,
    updatedAt: header?.updatedAt ?? null,
    firstPrompt: header?.summary.firstPrompt ?? null,
    unreadable,
    refs: sessionRefsOf(view, id),
    indexFiles: await indexFilesOf(store, id),
    forks: [...(sessionsOf(view).forksOf.get(id) ?? [])],
  };
}

/**
 * The rewind records of the given sessions, with their backup refs — except the one `--undo`
 * restores: it holds the state from before the last rewind, which may be work of the user's that
 * nothing else keeps, so it stays (gc removes it once it is no longer the undo target).
 */
export function recordRemovals(
  view: StoreView,
  chosen: (r: StoredRecord) => boolean,
): { records: RecordRemoval[]; kept: string[] } {
  const kept: string[] = [];
  const going = view.records.filter((r) => {
    if (!chosen(r)) return false;
    if (r.record.stamp === view.undoStamp) {
      kept.push(
        `rewind record ${r.record.stamp} and ${r.record.backup.ref}: \`nudge session rewind --undo\` restores it (session ${r.record.sessionId}, to turn ${r.record.turn})`,
      );
      return false;
    }
    if (!isSettled(r.record)) {
      kept.push(`rewind record ${r.record.stamp}: it is ${r.record.status}, not finished`);
      return false;
    }
    return true;
  });
  const stays = new Set(view.records.filter((r) => !going.includes(r)).map((r) => r.record.backup.ref));
  const records = going.map(({ record, file, companions }) => {
    const tip = view.refs.find((t) => t.ref === record.backup.ref && t.ref.startsWith(BACKUP_REFS));
    return {
      stamp: record.stamp,
      kind: record.kind,
      at: record.at,
      sessionId: record.sessionId,
      turn: record.turn,
      status: record.status,
      files: [file, ...companions],
      backup: tip && !stays.has(tip.ref) ? { ref: tip.ref, commit: tip.commit } : null,
    };
  });
  return { records, kept };
}

/** Why another nudge process holds a session's lock, for a plan that leaves the session alone. */
export function heldText(lock: LockInfo): string {
  return `another nudge process holds it (${holderText(lock)}${lock.what ? `: ${lock.what}` : ""})`;
}

/** A session with a claude that may be writing, or that another nudge process works on: not to be removed under it. */
async function refuseIfLive(store: Store, view: Pick<StoreView, "live" | "held">, id: string): Promise<void> {
  const found = view.live.find((l) => l.id === id);
  const held = view.held.get(id);
  if (!found && held)
    throw new UserError(
      `session ${id} cannot be removed now: ${heldText(held)}`,
      "wait for it to finish, then run the rm again",
    );
  if (!found) return;
  if (found.orphanPid !== null) {
    throw new UserError(
      `the claude of crashed session ${id} is still running (pid ${found.orphanPid}); the session cannot be removed under it`,
      `stop it (kill ${found.orphanPid}), or recover the session first (nudge claude run -r ${id}), then remove it`,
    );
  }
  const holder = await readLock(bundleFiles(bundleDir(store, id)).lock);
  throw new UserError(
    `session ${id} is being recorded right now${holder ? ` (nudge pid ${holder.owner.pid})` : ""}; it cannot be removed while it records`,
    "quit that session first (/exit), then run the rm again",
  );
}

/** The plan for `nudge session rm <id>…`: ids or unique prefixes; a live session refuses the whole command. */
export async function planRemoval(store: Store, idsOrPrefixes: string[]): Promise<HousekeepingPlan> {
  const ids = [...new Set(await Promise.all(idsOrPrefixes.map((p) => resolveId(store, p))))];
  const view = await readStoreView(store);
  for (const id of ids) await refuseIfLive(store, view, id);
  const sessions = await Promise.all(ids.map((id) => sessionRemoval(store, view, id)));
  const removed = new Set(ids);
  // A fork being removed too is not one that "keeps working".
  for (const s of sessions) s.forks = s.forks.filter((f) => !removed.has(f.id));
  const { records, kept } = recordRemovals(view, (r) => removed.has(r.record.sessionId));
  return { sessions, records, backupRefs: [], leftovers: [], kept };
}
