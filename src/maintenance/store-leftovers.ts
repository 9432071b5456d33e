/**
 * What nudge itself left in its store when something was cut off (a kill, a crash, a reboot):
 * private indexes of sessions that are not recording, session folders that never got a
 * manifest, forks and removals cut off halfway, untracked-cache check scratch folders, locks
 * whose holder is gone, temp files of dead processes (the session index's among them), shared
 * index files no index uses, and the work folders of killed imports, exports and forks (what
 * they had done elsewhere is undone).
 * Anything a live process may be using is never a leftover: a lock held or an orphaned claude
 * running, and a grace period for what is made in a moment (a folder between mkdir and lock).
 */
import { promises as fs, type Dirent } from "node:fs";
import path from "node:path";
import { findCutOffWork } from "../store/cut-off-work.js";
import { diskUsage } from "../store/disk-usage.js";
import { isRunning, lockActivity, processStart } from "../store/locks.js";
import { bundleDir, bundleFiles, type Store } from "../store/store.js";
import { holdsStream } from "../store/conversation-pieces.js";
import { pathExists } from "../base/file-exists.js";
import type { Leftover } from "./housekeeping-plan.js";
import { sharedIndexFiles, sharedIndexesInUse } from "./shared-indexes.js";
import { sessionRefsOf, type StoreView } from "./session-removal.js";

/** Long enough for anything nudge makes and fills in one go (a fork's folder, a scratch check). */
const GRACE_MS = 10 * 60_000;
/** git writes a shared index, then the index that points to it: never take one that fresh. */
export const SHARED_INDEX_GRACE_MS = 60 * 60_000;

const SESSION_ID = "[0-9a-z]{8,32}";
const TEMP = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/; // atomic-write.ts's temp files
const ASIDE = /\.lock\.(\d+)\.[0-9a-f]{8}$/; // locks.ts moves a stale lock aside under this name
const SYNC_TEMP = /^remote\.git\.(\d+)\.tmp$/; // git-remote.ts makes the sync repository under this name

export interface LeftoverScan {
  leftovers: Leftover[];
  kept: string[];
}

function dead(pid: string): boolean {
  const n = Number(pid);
  return !isRunning({ pid: n, started: processStart(n) });
}

async function entries(dir: string): Promise<Dirent[]> {
  return fs.readdir(dir, { withFileTypes: true }).catch(() => []);
}

async function olderThan(file: string, ms: number, now: number): Promise<boolean> {
  const stat = await fs.lstat(file).catch(() => null);
  return stat !== null && now - stat.mtimeMs > ms;
}

async function leftover(
  kind: Leftover["kind"],
  file: string,
  what: string,
  extra: Partial<Leftover> = {},
): Promise<Leftover> {
  return { kind, path: file, what, bytes: await diskUsage(file), ...extra };
}

/** Temp files and set-aside locks of processes that are gone, in one folder. */
async function deadProcessFiles(dir: string): Promise<Leftover[]> {
  const found: Leftover[] = [];
  for (const e of await entries(dir)) {
    const temp = TEMP.exec(e.name);
    const aside = ASIDE.exec(e.name);
    if (e.isFile() && temp && dead(temp[1]!))
      found.push(await leftover("temp-file", path.join(dir, e.name), "a temp file of a nudge that died"));
    if (e.isFile() && aside && dead(aside[1]!))
      found.push(await leftover("temp-file", path.join(dir, e.name), "a lock set aside by a nudge that died"));
    const sync = SYNC_TEMP.exec(e.name);
    if (e.isDirectory() && sync && dead(sync[1]!))
      found.push(
        await leftover("temp-file", path.join(dir, e.name), "a sync repository a nudge that failed or died was making"),
      );
  }
  return found;
}

async function sessionFolders(
  store: Store,
  view: StoreView,
  removing: Set<string>,
  now: number,
): Promise<LeftoverScan> {
  const out: LeftoverScan = { leftovers: [], kept: [] };
  const root = path.join(store.dir, "sessions");
  for (const e of (await entries(root)).filter((d) => d.isDirectory())) {
    const dir = path.join(root, e.name);
    const cut = new RegExp(`^\\.(${SESSION_ID})\\.(building|removing)$`).exec(e.name);
    if (cut) {
      // The removal holds the session's lock, which moved with the folder: a dead holder means cut off, whatever its age.
      const lock = bundleFiles(dir).lock;
      const orphaned = (await pathExists(lock)) && !(await lockActivity(lock));
      if (!orphaned && !(await olderThan(dir, GRACE_MS, now))) continue;
      const id = cut[1]!;
      const refs = (await pathExists(bundleDir(store, id))) ? [] : sessionRefsOf(view, id);
      const what =
        cut[2] === "building" ? "a fork cut off while it was being made" : "a session removal that was cut off";
      out.leftovers.push(await leftover("session-folder", dir, what, { refs }));
      continue;
    }
    if (!new RegExp(`^${SESSION_ID}$`).test(e.name) || removing.has(e.name)) continue;
    const files = bundleFiles(dir);
    if (await lockActivity(files.lock)) continue; // recording, or its claude still runs
    if (await pathExists(files.manifest)) {
      if (await pathExists(files.lock))
        out.leftovers.push(
          await leftover("stale-lock", files.lock, `the lock of session ${e.name}, whose nudge is gone`),
        );
      for (const sub of [dir, files.changes, files.transcripts]) out.leftovers.push(...(await deadProcessFiles(sub)));
      continue;
    }
    // No manifest: a session killed before its first snapshot was saved, unless it holds a conversation.
    if (await holdsStream(dir)) {
      out.kept.push(
        `session folder ${e.name}: it has no manifest.json but holds a conversation (remove it with: nudge session rm ${e.name})`,
      );
    } else if ((await pathExists(files.lock)) || (await olderThan(dir, GRACE_MS, now))) {
      const refs = sessionRefsOf(view, e.name);
      out.leftovers.push(
        await leftover("session-folder", dir, "a session cut off before its first snapshot was saved", {
          refs,
          lock: files.lock,
        }),
      );
    }
  }
  return out;
}

async function indexFolder(store: Store, removing: Set<string>, now: number): Promise<Leftover[]> {
  const found: Leftover[] = [];
  const root = path.join(store.dir, "index");
  for (const e of await entries(root)) {
    const file = path.join(root, e.name);
    const session = new RegExp(`^(${SESSION_ID})(\\.lock)?$`).exec(e.name);
    const worktree = /^(worktree-[0-9a-f]{12})(\.lock)?$/.exec(e.name);
    if (session && e.isFile() && !removing.has(session[1]!)) {
      const dir = bundleDir(store, session[1]!);
      const exists = await pathExists(dir);
      if (exists && (await lockActivity(bundleFiles(dir).lock))) continue;
      const what = `the private index of session ${session[1]}, ${exists ? "which is not recording" : "which no longer exists"}`;
      found.push(await leftover("private-index", file, what, exists ? { lock: bundleFiles(dir).lock } : {}));
    } else if (worktree && e.isFile()) {
      const lock = path.join(store.dir, "locks", `${worktree[1]}.lock`);
      if (await lockActivity(lock)) continue;
      found.push(await leftover("private-index", file, "the private index of a rewind, not in use", { lock }));
    } else if (
      /^untracked-cache-[0-9a-f]{12}\.(check|verdict\.tmp)$/.test(e.name) &&
      (await olderThan(file, GRACE_MS, now))
    ) {
      found.push(await leftover("scratch", file, "an untracked-cache check that was cut off"));
    }
  }
  return [...found, ...(await deadProcessFiles(root))];
}

async function locksFolder(store: Store): Promise<Leftover[]> {
  const root = path.join(store.dir, "locks");
  const found: Leftover[] = [];
  for (const e of await entries(root)) {
    const file = path.join(root, e.name);
    if (e.isFile() && e.name.endsWith(".lock") && !(await lockActivity(file)))
      found.push(await leftover("stale-lock", file, "a lock whose holder is gone"));
  }
  return [...found, ...(await deadProcessFiles(root))];
}

async function rewindsFolder(store: Store, now: number): Promise<Leftover[]> {
  const root = path.join(store.dir, "rewinds");
  const found: Leftover[] = [];
  for (const e of await entries(root)) {
    const file = path.join(root, e.name);
    const copy = /^(.+)\.index$/.exec(e.name);
    // A rewind copies the user's index just before it writes its record: only an old orphan is one.
    if (
      copy &&
      e.isFile() &&
      !(await pathExists(path.join(root, `${copy[1]}.json`))) &&
      (await olderThan(file, GRACE_MS, now))
    ) {
      found.push(await leftover("scratch", file, "a copy of your index kept for a rewind record that is gone"));
    }
  }
  return [...found, ...(await deadProcessFiles(root))];
}

/** Work folders of commands that were killed: their journal's steps are undone when the folder goes. */
async function cutOffWork(store: Store): Promise<Leftover[]> {
  const found: Leftover[] = [];
  for (const c of await findCutOffWork(store)) {
    const undo = c.steps ? ` (${c.steps} step${c.steps === 1 ? "" : "s"} it took elsewhere are undone)` : "";
    found.push(await leftover("cut-off-work", c.dir, `${c.what}, cut off${undo}`));
  }
  return found;
}

/** Shared index files no index refers to, once the private indexes in `going` are removed. */
async function unusedSharedIndexes(store: Store, going: Set<string>, now: number): Promise<Leftover[]> {
  const used = await sharedIndexesInUse(store, going);
  return sharedIndexFiles(store).then((all) =>
    all
      .filter((s) => !used.has(s.file) && now - s.mtimeMs > SHARED_INDEX_GRACE_MS)
      .map((s) => ({
        kind: "shared-index" as const,
        path: s.file,
        what: "a shared index file no index refers to",
        bytes: s.bytes,
      })),
  );
}

/**
 * Every leftover in the store. `removing`: sessions the plan removes (their folders and indexes
 * are the plan's already); `going`: index files the plan removes, which keep no shared index.
 */
export async function findLeftovers(
  store: Store,
  view: StoreView,
  o: { removing: Set<string>; going: Set<string>; now: number },
): Promise<LeftoverScan> {
  const folders = await sessionFolders(store, view, o.removing, o.now);
  const rest = [
    ...(await indexFolder(store, o.removing, o.now)),
    ...(await locksFolder(store)),
    ...(await rewindsFolder(store, o.now)),
    ...(await cutOffWork(store)),
    // The session index's temp file, of a listing killed while it wrote the index.
    ...(await deadProcessFiles(store.dir)),
  ];
  const leftovers = [...folders.leftovers, ...rest];
  const going = new Set([...o.going, ...leftovers.filter((l) => l.kind === "private-index").map((l) => l.path)]);
  return { leftovers: [...leftovers, ...(await unusedSharedIndexes(store, going, o.now))], kept: folders.kept };
}
