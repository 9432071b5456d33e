/**
 * The journal of everything that rewrites a work tree (a rewind, a fork put in place, an undo):
 * one record per operation, written before the work tree changes and updated when it is done.
 * - `--undo` finds the backup of the last rewind here, always.
 * - A record still "started" whose process is gone was cut off halfway (a kill, a crash): the
 *   next command that touches the work tree finds it and offers to finish it or roll it back.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import * as z from "../zod.js";
import { writeFileAtomic, ensureDir } from "../bundle/atomic-write.js";
import { isRunning, processStart } from "../bundle/locks.js";
import type { Store } from "../bundle/store.js";
import * as git from "../snapshot/git.js";
import { BACKUP_REFS } from "../snapshot/snapshotter.js";

const sha = z.string().check(z.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/));

export const RewindRecordSchema = z.object({
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
  /** A fork put in place: the fork session this rewind made (its undo abandons it: `claude run -c` goes back to the session forked). */
  fork: z._default(z.nullable(z.string()), null),
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
export async function keepBackup(root: string, tree: string, head: string | null, message: string, label: string): Promise<string> {
  const ref = `${BACKUP_REFS}${newStamp()}-${label}`;
  await git.updateRefs(root, [{ ref, commit: await backupCommit(root, tree, head, message) }]);
  return ref;
}

/** A backup's commit: the tree on top of `head`, so commits made since stay reachable from it. */
export function backupCommit(root: string, tree: string, head: string | null, message: string): Promise<string> {
  return git.commitTree(root, tree, head ? [head] : [], message);
}

export async function saveRecord(store: Store, record: RewindRecord): Promise<void> {
  await ensureDir(rewindsDir(store));
  await writeFileAtomic(path.join(rewindsDir(store), `${record.stamp}.json`), JSON.stringify(record, null, 2) + "\n");
}

/** Every readable record, newest first. */
export async function allRecords(store: Store): Promise<RewindRecord[]> {
  let names: string[];
  try {
    names = (await fs.readdir(rewindsDir(store))).filter((n) => n.endsWith(".json")).sort().reverse();
  } catch {
    return [];
  }
  const records: RewindRecord[] = [];
  for (const name of names) {
    let json: unknown;
    try {
      json = JSON.parse(await fs.readFile(path.join(rewindsDir(store), name), "utf8"));
    } catch {
      continue; // unreadable: written atomically, so only damage from outside nudge gets here
    }
    const parsed = RewindRecordSchema.safeParse(json);
    if (parsed.success) records.push(parsed.data);
  }
  return records;
}

/** The newest rewind that is applied (not undone, not failed), or null. */
export async function lastRewind(store: Store): Promise<RewindRecord | null> {
  return lastRewindIn(await allRecords(store));
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
  return (await allRecords(store)).find((r) => r.root === root && r.status === "started" && !inProgress(r)) ?? null;
}
