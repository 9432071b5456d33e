/**
 * The journal of everything that rewrites a work tree (a rewind, a fork put in place, an undo):
 * one record per operation, written before the work tree changes and updated when it is done.
 * - `--undo` finds the backup of the last rewind here, always.
 * - A record still "started" whose process is gone was cut off halfway (a kill, a crash): the
 *   next command that touches the work tree finds it and offers to finish it or roll it back.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import * as z from "../base/zod.js";
import { writeFileAtomic, ensureDir } from "../store/atomic-write.js";
import { readCacheFile, writeCacheFile } from "../base/cache-file.js";
import { isRunning, processStart } from "../store/locks.js";
import type { Store } from "../store/store.js";
import * as git from "../snapshot/git.js";
import { BACKUP_REFS } from "../snapshot/snapshotter.js";
import { writeCommitHere } from "../snapshot/loose-writes.js";

const sha = z.string().check(z.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/));

const RewindRecordSchema = z.object({
  stamp: z.string().check(z.regex(/^[0-9-]+$/)),
  at: z.string(),
  /** rewind: to a turn (also a fork put in place); undo: back to before a rewind. */
  kind: z._default(z.enum(["rewind", "undo"]), "rewind"),
  sessionId: z.string(),
  turn: z.int().check(z.nonnegative()),
  /** The work tree that was rewritten (a fork may live in another worktree of the repository). */
  root: z.string(),
  scope: z.enum(["both", "code", "conversation"]),
  /** The state before, kept under `ref` (a commit on top of HEAD, so later commits stay reachable). */
  backup: z.object({ commit: z.nullable(sha), tree: sha, ref: z.string() }),
  before: z.object({
    head: z.nullable(sha),
    branch: z.nullable(z.string()),
    rewoundTo: z.nullable(z.int()),
    /** A copy of the user's index, kept only when --reset-head rewrote it. */
    indexCopy: z.nullable(z.string()),
  }),
  after: z.nullable(z.object({ tree: sha, head: z.nullable(sha) })),
  /**
   * Files a rewind deleted that its backup tree cannot hold (a later turn ignored them): --undo
   * writes them back. On an undo's record, the files it writes back.
   */
  hidden: z._default(z.array(z.object({ path: z.string(), mode: z.string(), blob: sha })), []),
  /** For an undo: the rewind it undoes. */
  undoes: z._default(z.nullable(z.string()), null),
  /** For an undo: what it undoes was a fork put in place (said so when it is named). */
  undoesFork: z._default(z.boolean(), false),
  /** A fork put in place: the fork session this rewind made (its undo abandons it: `claude run -c` goes back to the session forked). */
  fork: z._default(z.nullable(z.string()), null),
  /** A fork put in place, begun: its session is made once the files are (`--continue` makes it when the fork was cut off before). */
  forking: z._default(z.boolean(), false),
  /**
   * started: written before the work tree changed, not finished; applied: done (`--undo` may
   * restore it); undone; failed: refused or put back, nothing to undo; rolled-back: an interrupted
   * operation was rolled back.
   */
  status: z.enum(["started", "applied", "undone", "failed", "rolled-back"]),
  /** The process doing it, so a record left "started" by a dead one is told from one in progress. */
  owner: z._default(z.nullable(z.object({ pid: z.int(), started: z.nullable(z.string()) })), null),
});
export type RewindRecord = z.infer<typeof RewindRecordSchema>;

/** "the rewind" or "the fork" an undo undoes. */
export function undoneName(record: RewindRecord): string {
  return record.undoesFork ? "the fork" : "the rewind";
}

/** What a record is of, in a message: an undo, a fork put in place, or a rewind. */
export function operationName(record: RewindRecord): "undo" | "fork" | "rewind" {
  return record.kind === "undo" ? "undo" : record.forking ? "fork" : "rewind";
}

/** The operation as a message names it after "a" or "the": "rewind of session 3f2a to turn 2". */
export function operationPhrase(r: RewindRecord): string {
  return {
    undo: `undo of ${undoneName(r)} of session ${r.sessionId}`,
    fork: `fork of session ${r.sessionId} at turn ${r.turn}`,
    rewind: `rewind of session ${r.sessionId} to turn ${r.turn}`,
  }[operationName(r)];
}

export function rewindsDir(store: Store): string {
  return path.join(store.dir, "rewinds");
}

export function newStamp(): string {
  return new Date().toISOString().replace(/[-:.]/g, "").replace("T", "-").slice(0, 18) + "-" + process.pid;
}

export function thisProcess(): RewindRecord["owner"] {
  return { pid: process.pid, started: processStart(process.pid) };
}

/** Keep a tree under refs/nudge/backup/<stamp>[-label], as a commit on top of `head`; returns the ref. */
export async function keepBackup(
  root: string,
  tree: string,
  head: string | null,
  message: string,
  label: string,
): Promise<string> {
  const ref = `${BACKUP_REFS}${newStamp()}-${label}`;
  await git.updateRefs(root, [{ ref, commit: await backupCommit(root, tree, head, message) }]);
  return ref;
}

/**
 * A backup's commit: the tree on top of `head`, so commits made since stay reachable from it.
 * `commonDir`: the work tree's git dir, known from the store, where it may be written without git.
 */
export async function backupCommit(
  root: string,
  tree: string,
  head: string | null,
  message: string,
  commonDir?: string,
): Promise<string> {
  const parents = head ? [head] : [];
  return (
    (commonDir && writeCommitHere(commonDir, tree, parents, message)) || git.commitTree(root, tree, parents, message)
  );
}

export async function saveRecord(store: Store, record: RewindRecord): Promise<void> {
  await ensureDir(rewindsDir(store));
  await writeFileAtomic(path.join(rewindsDir(store), `${record.stamp}.json`), JSON.stringify(record, null, 2) + "\n");
  if (record.status === "started") underWay = record;
  else if (underWay?.stamp === record.stamp) underWay = null;
}

/** This process's operation from its "started" record until it is settled: what a Ctrl-C would cut off halfway. */
let underWay: RewindRecord | null = null;

export function recordUnderWay(): RewindRecord | null {
  return underWay;
}

/** An interrupted operation this process is finishing or rolling back: under way again until its record is settled. */
export function resumeRecord(record: RewindRecord): void {
  underWay = record;
}

/**
 * A record in one of these states is finished with: nothing is in progress on it. A record never
 * goes back to "started" (its stamp is new each time), so once settled it stays settled.
 */
const SETTLED = new Set<string>(["applied", "undone", "failed", "rolled-back"]);

export function isSettled(record: RewindRecord): boolean {
  return SETTLED.has(record.status);
}

/** The records' file names, newest first (stamps sort by time); none when there is no folder yet. */
async function recordNames(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir))
      .filter((n) => n.endsWith(".json"))
      .sort()
      .reverse();
  } catch {
    return [];
  }
}

async function readRecord(dir: string, name: string): Promise<RewindRecord | null> {
  let json: unknown;
  try {
    // Read as a cache is: anything but a file in its place (a FIFO would block every rewind) is unreadable.
    json = JSON.parse(readCacheFile(path.join(dir, name), 1 << 20) ?? "");
  } catch {
    return null; // unreadable: written atomically, so only damage from outside nudge gets here
  }
  const parsed = RewindRecordSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** Every readable record, newest first. */
export async function allRecords(store: Store): Promise<RewindRecord[]> {
  const dir = rewindsDir(store);
  const records = await Promise.all((await recordNames(dir)).map((name) => readRecord(dir, name)));
  return records.filter((r) => r !== null);
}

/** The newest rewind that is applied (not undone, not failed), or null: read from the newest back, a few at a time, until found. */
export async function lastRewind(store: Store): Promise<RewindRecord | null> {
  const dir = rewindsDir(store);
  const names = await recordNames(dir);
  for (let i = 0; i < names.length; i += 8) {
    const found = lastRewindIn(
      (await Promise.all(names.slice(i, i + 8).map((n) => readRecord(dir, n)))).filter((r) => r !== null),
    );
    if (found) return found;
  }
  return null;
}

/** The same, from records already read (newest first, as `allRecords` gives them). */
export function lastRewindIn(records: RewindRecord[]): RewindRecord | null {
  return records.find((r) => r.kind === "rewind" && r.status === "applied") ?? null;
}

/**
 * An operation on this work tree that was cut off: still "started", and its process is gone
 * (or it is no longer the process that started it).
 */
export async function interruptedIn(store: Store, root: string): Promise<RewindRecord | null> {
  const inProgress = (r: RewindRecord) => r.owner !== null && (r.owner.pid === process.pid || isRunning(r.owner));
  return (
    (await unsettledRecords(store)).find((r) => r.root === root && r.status === "started" && !inProgress(r)) ?? null
  );
}

/**
 * The records not known to be settled, newest first. Every command that touches a work tree asks
 * for an interrupted operation, and reading every record each time grew with every rewind (157
 * records: ~80 ms of a 330 ms rewind). `settled.txt` beside them names the records read settled:
 * a record never goes back to "started" (see SETTLED), so one listed is not read again, nor even
 * looked at (a stat of each was ~5 ms a rewind at 640 records, and grew with them). It is a cache
 * only: missing or damaged, the records are read and it is written again.
 */
async function unsettledRecords(store: Store): Promise<RewindRecord[]> {
  const dir = rewindsDir(store);
  const names = await recordNames(dir);
  if (names.length === 0) return [];
  const cached = readSettledCache(dir);
  const toRead = names.filter((n) => !cached.has(n));
  const read = await Promise.all(toRead.map(async (n) => ({ name: n, record: await readRecord(dir, n) })));
  const newlySettled = read.filter((r) => r.record !== null && isSettled(r.record));
  if (newlySettled.length > 0 || cached.size > names.length) {
    const settled = new Set([...names.filter((n) => cached.has(n)), ...newlySettled.map((r) => r.name)]);
    // A cache, not fsynced: lost to a crash, or not written (another command at the same time, a
    // full disk), it costs a re-read next time, nothing more.
    await writeCacheFile(path.join(dir, SETTLED_CACHE), names.filter((n) => settled.has(n)).join("\n") + "\n");
  }
  return read.flatMap((r) => (r.record && !isSettled(r.record) ? [r.record] : []));
}

const SETTLED_CACHE = "settled.txt";

function readSettledCache(dir: string): Set<string> {
  const text = readCacheFile(path.join(dir, SETTLED_CACHE)) ?? "";
  const cached = new Set<string>();
  // A line is a record's name (an older nudge wrote its size and time after it: the name is what counts).
  for (const line of text.split("\n")) {
    const m = /^([0-9-]+\.json)( \d+ \d+)?$/.exec(line);
    if (m) cached.add(m[1]!);
  }
  return cached;
}
