/**
 * Every rewind leaves a record (before it changes anything) so `rewind --undo` can put back the
 * exact state from before it: the backup snapshot, HEAD, and the user's index when it was reset.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { writeFileAtomic, ensureDir } from "../bundle/atomic-write.js";
import type { Store } from "../bundle/store.js";
import * as git from "../snapshot/git.js";

export const RewindRecordSchema = z.object({
  stamp: z.string(),
  at: z.string(),
  sessionId: z.string(),
  turn: z.number().int().nonnegative(),
  /** The work tree that was rewound (a fork may live in another worktree of the repository). */
  root: z.string(),
  scope: z.enum(["both", "code", "conversation"]),
  backup: z.object({ commit: z.string(), tree: z.string(), ref: z.string() }),
  before: z.object({
    head: z.string().nullable(),
    branch: z.string().nullable(),
    rewoundTo: z.number().int().nullable(),
    /** A copy of the user's index, kept only when --reset-head rewrote it. */
    indexCopy: z.string().nullable(),
  }),
  after: z.object({ tree: z.string(), head: z.string().nullable() }).nullable(),
  /** applied: `--undo` may restore it; undone: it was; failed: the switch was refused and put back. */
  status: z.enum(["applied", "undone", "failed"]),
});
export type RewindRecord = z.infer<typeof RewindRecordSchema>;

export function rewindsDir(store: Store): string {
  return path.join(store.dir, "rewinds");
}

export function newStamp(): string {
  return new Date().toISOString().replace(/[-:.]/g, "").replace("T", "-").slice(0, 18) + "-" + process.pid;
}

/** Keep a tree under refs/nudge/backup/<stamp>[-label], as a commit on top of `head`; returns the ref. */
export async function keepBackup(root: string, tree: string, head: string | null, message: string, label: string): Promise<string> {
  const ref = `refs/nudge/backup/${newStamp()}-${label}`;
  const commit = await git.commitTree(root, tree, head ? [head] : [], message);
  await git.updateRefs(root, [{ ref, commit }]);
  return ref;
}

export async function saveRecord(store: Store, record: RewindRecord): Promise<void> {
  await ensureDir(rewindsDir(store));
  await writeFileAtomic(path.join(rewindsDir(store), `${record.stamp}.json`), JSON.stringify(record, null, 2) + "\n");
}

/** The newest rewind that is applied (not undone, not failed), or null. */
export async function lastRewind(store: Store): Promise<RewindRecord | null> {
  let names: string[];
  try {
    names = (await fs.readdir(rewindsDir(store))).filter((n) => n.endsWith(".json")).sort().reverse();
  } catch {
    return null;
  }
  for (const name of names) {
    let json: unknown;
    try {
      json = JSON.parse(await fs.readFile(path.join(rewindsDir(store), name), "utf8"));
    } catch {
      continue; // unreadable: written atomically, so only damage from outside nudge gets here
    }
    const parsed = RewindRecordSchema.safeParse(json);
    if (parsed.success && parsed.data.status === "applied") return parsed.data;
  }
  return null;
}
