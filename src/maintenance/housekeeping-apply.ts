/**
 * Carry out a housekeeping plan. Whatever a live process may be using is checked again at the
 * moment it goes, under its lock: a session is removed only while nudge holds the session's
 * lock, so no recording can start on it halfway; a private index only under its owner's lock.
 *
 * A session goes in this order, so a cut-off removal is never a half-readable session: its
 * folder is renamed to a hidden `.<id>.removing` (from then on no command sees it), then its
 * refs are deleted, then the folder; `nudge session gc` finishes a removal cut off midway.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError, errorMessage } from "../base/errors.js";
import { faultPoint } from "../base/fault-injection.js";
import { pathExists } from "../base/file-exists.js";
import { clearCutOff } from "../store/cut-off-work.js";
import { acquireLock, lockActivity, type HeldLock } from "../store/locks.js";
import { bundleFiles, readHeader, type Store } from "../store/store.js";
import * as git from "../snapshot/git.js";
import * as remoteGit from "../snapshot/git-remote.js";
import type { HousekeepingPlan, Leftover, SessionRemoval } from "./housekeeping-plan.js";
import { undoTarget } from "../time-travel/rewind-records.js";
import { sharedIndexesInUse } from "./shared-indexes.js";
import { SHARED_INDEX_GRACE_MS } from "./store-leftovers.js";

export interface HousekeepingResult {
  sessions: string[];
  records: string[];
  refs: string[];
  leftovers: string[];
  /** What the plan named but was found in use (or changed) when its turn came, and stays. */
  skipped: string[];
}

/** A lock taken only if nothing holds it and no orphaned claude runs under it. */
async function holdIfFree(file: string, what: string): Promise<HeldLock | null> {
  if (await lockActivity(file)) return null;
  try {
    return await acquireLock(file, { what, busy: () => new UserError("busy") });
  } catch (error) {
    if (error instanceof UserError) return null;
    throw error;
  }
}

/**
 * `strict` (rm): a session found live or changed refuses the whole command before anything
 * goes. Otherwise (gc) it is skipped and said so.
 */
export async function applyHousekeeping(
  store: Store,
  plan: HousekeepingPlan,
  o: { strict: boolean },
): Promise<HousekeepingResult> {
  const result: HousekeepingResult = { sessions: [], records: [], refs: [], leftovers: [], skipped: [] };
  const held = new Map<SessionRemoval, HeldLock>();
  try {
    for (const s of plan.sessions) {
      const why = await holdSession(s, held);
      if (!why) continue;
      if (o.strict)
        throw new UserError(`session ${s.id} ${why}; nothing was removed`, "run the rm again to see the new plan");
      result.skipped.push(`session ${s.id}: ${why}`);
    }
    for (const [s] of held) {
      await removeSession(store, s);
      result.sessions.push(s.id);
      result.refs.push(...s.refs.map((r) => r.ref));
    }
  } finally {
    for (const lock of held.values()) await lock.release();
  }
  // A session that stays keeps the records that were to go with it.
  const stays = new Set(plan.sessions.filter((s) => !result.sessions.includes(s.id)).map((s) => s.id));
  await removeRecords(store, { ...plan, records: plan.records.filter((r) => !stays.has(r.sessionId)) }, result);
  for (const b of plan.backupRefs) await removeRefs(store, [b], result, b.ref);
  await removeLeftovers(store, plan.leftovers, result);
  return result;
}

/** Take a session's lock; the reason it cannot go now, or null once it is held. */
async function holdSession(s: SessionRemoval, held: Map<SessionRemoval, HeldLock>): Promise<string | null> {
  // Taking the lock of a folder that is gone would make the folder again.
  if (!(await pathExists(s.dir))) return "is gone already";
  const lock = await holdIfFree(bundleFiles(s.dir).lock, `removing session ${s.id}`);
  if (!lock) return "is being recorded, or its claude is running";
  const now = s.unreadable
    ? null
    : await readHeader(s.dir).then(
        (h) => h.updatedAt,
        () => null,
      );
  if (now !== s.updatedAt) {
    await lock.release();
    return "was used since the plan was made";
  }
  held.set(s, lock);
  return null;
}

async function removeSession(store: Store, s: SessionRemoval): Promise<void> {
  const hidden = path.join(path.dirname(s.dir), `.${s.id}.removing`);
  await fs.rm(hidden, { recursive: true, force: true });
  await fs.rename(s.dir, hidden);
  faultPoint("gc-hidden");
  try {
    await git.deleteRefsAt(store.repoRoot, s.refs);
  } catch (error) {
    await fs.rename(hidden, s.dir); // a ref moved under us: the session stays as it was
    throw error;
  }
  faultPoint("gc-refs");
  for (const file of s.indexFiles) await fs.rm(file, { force: true });
  await fs.rm(hidden, { recursive: true, force: true });
}

async function removeRefs(
  store: Store,
  refs: Array<{ ref: string; commit: string }>,
  result: HousekeepingResult,
  what: string,
): Promise<void> {
  try {
    await git.deleteRefsAt(store.repoRoot, refs);
    result.refs.push(...refs.map((r) => r.ref));
  } catch (error) {
    result.skipped.push(`${what}: ${errorMessage(error)}`);
  }
}

async function removeRecords(store: Store, plan: HousekeepingPlan, result: HousekeepingResult): Promise<void> {
  if (plan.records.length === 0) return;
  // An undo or a rewind since the plan can make another record the one `--undo` restores.
  const target = await undoTarget(store);
  for (const r of plan.records) {
    if (r.stamp === target) {
      result.skipped.push(`rewind record ${r.stamp}: \`nudge session rewind --undo\` restores it now`);
      continue;
    }
    // The record first: a backup ref left without one is an orphan gc finds; the reverse would be a record pointing at nothing.
    for (const file of r.files) await fs.rm(file, { force: true });
    result.records.push(r.stamp);
    if (r.backup) await removeRefs(store, [r.backup], result, r.backup.ref);
  }
}

async function removeLeftovers(store: Store, leftovers: Leftover[], result: HousekeepingResult): Promise<void> {
  const shared = leftovers.filter((l) => l.kind === "shared-index");
  for (const l of leftovers.filter((x) => x.kind !== "shared-index")) {
    const done = await removeLeftover(store, l);
    if (done) result.leftovers.push(l.path);
    else result.skipped.push(`${l.what}: ${l.path} is in use now`);
  }
  if (shared.length === 0) return;
  // Asked again now that the private indexes are gone: an index may have started using one meanwhile.
  const used = await sharedIndexesInUse(store);
  for (const l of shared) {
    const stat = await fs.stat(l.path).catch(() => null);
    if (!stat) continue;
    if (used.has(l.path) || Date.now() - stat.mtimeMs <= SHARED_INDEX_GRACE_MS) {
      result.skipped.push(`${l.what}: ${l.path} is in use now`);
      continue;
    }
    await fs.rm(l.path, { force: true });
    result.leftovers.push(l.path);
  }
}

async function removeLeftover(store: Store, l: Leftover): Promise<boolean> {
  // A lock in a folder that is gone guards nothing (and taking it would make the folder again).
  const guard = l.lock && (await pathExists(path.dirname(l.lock))) ? l.lock : null;
  const lock = guard ? await holdIfFree(guard, `cleaning up ${path.basename(l.path)}`) : null;
  if (guard && !lock) return false;
  try {
    if (l.kind === "stale-lock") {
      if (!(await pathExists(path.dirname(l.path)))) return true;
      // Taken over and let go, as any nudge would: safe against another process taking it at the same moment.
      const taken = await holdIfFree(l.path, "removing a stale lock");
      if (!taken) return false;
      await taken.release();
      return true;
    }
    if (l.kind === "sync-repository") {
      // Its refs are the sync repository's, not the user's; the lock held above is the sync's.
      await remoteGit.cleanSyncRepository(l.path, l.refs ?? []);
      return true;
    }
    if (l.kind === "cut-off-work") {
      await clearCutOff(store, l.path); // its journal undone, then the folder
      return true;
    }
    if (l.refs?.length) await git.deleteRefsAt(store.repoRoot, l.refs);
    await fs.rm(l.path, { recursive: true, force: true });
    return true;
  } finally {
    await lock?.release();
  }
}
