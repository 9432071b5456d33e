/**
 * Who records in a work tree, and when: one small file per recording process, in
 * `<store>/locks/worktree-<hash>.recordings/`. The work-tree lock lets one recording at a time
 * in, but `claude run --force` records alongside another: then what either one's turn captures
 * may be the other's doing, and nothing in the files says whose. So each recording asks, as a
 * turn ends, which others were live during it, and the turn says so (turn-save.ts).
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as z from "../base/zod.js";
import { ensureDir, writeFileAtomic } from "./atomic-write.js";
import { isRunning, processStart } from "./locks.js";
import { workTreeLockFile } from "./work-tree-lock.js";
import type { Store } from "./store.js";

const EntrySchema = z.object({
  host: z.string(),
  pid: z.int().check(z.positive()),
  started: z.nullable(z.string()),
  /** The sessions this process recorded, the current one last (a /rewind or /fork switches). */
  sessions: z.array(z.string().check(z.regex(/^[0-9a-z]{8,32}$/))).check(z.minLength(1)),
  startedAt: z.iso.datetime({ offset: true }),
  endedAt: z.nullable(z.iso.datetime({ offset: true })),
});
type Entry = z.infer<typeof EntrySchema>;

interface OtherRecording {
  session: string;
  pid: number;
}

export interface RecordingRegistration {
  /** The session this process records now. */
  setSession(id: string): Promise<void>;
  /** Other recordings in this work tree live now (for the warning at start). */
  live(): Promise<OtherRecording[]>;
  /** The sessions of other recordings live at any moment between `from` and `to` (ISO times). */
  during(from: string, to: string): Promise<string[]>;
  end(): Promise<void>;
}

export async function registerRecording(store: Store, root: string, sessionId: string): Promise<RecordingRegistration> {
  const folder = workTreeLockFile(store, root).replace(/\.lock$/, ".recordings");
  await ensureDir(folder);
  const file = path.join(folder, `${process.pid}-${randomBytes(4).toString("hex")}.json`);
  let mine: Entry = {
    host: os.hostname(),
    pid: process.pid,
    started: processStart(process.pid),
    sessions: [sessionId],
    startedAt: new Date().toISOString(),
    endedAt: null,
  };
  const write = () => writeFileAtomic(file, JSON.stringify(mine) + "\n");
  await forgetOld(folder, mine.startedAt);
  await write();
  const others = async () => (await readEntries(folder)).filter((e) => e.file !== file);
  return {
    setSession: async (id) => {
      if (mine.sessions.at(-1) === id) return;
      mine = { ...mine, sessions: [...mine.sessions, id] };
      await write();
    },
    live: async () =>
      (await others())
        .filter((e) => e.entry.endedAt === null)
        .map((e) => ({ session: e.entry.sessions.at(-1)!, pid: e.entry.pid })),
    during: async (from, to) => {
      // An earlier recording of these same sessions (a nudge killed mid-turn, its turn recovered
      // now) is not another's work in the tree (QA: a recovered turn was marked as shared with itself).
      const overlapping = (await others()).filter(
        ({ entry }) =>
          entry.startedAt <= to &&
          (entry.endedAt ?? to) >= from &&
          !entry.sessions.some((id) => mine.sessions.includes(id)),
      );
      return [...new Set(overlapping.map((e) => e.entry.sessions.at(-1)!))];
    },
    end: async () => {
      mine = { ...mine, endedAt: new Date().toISOString() };
      await write().catch(() => undefined);
    },
  };
}

/**
 * Every entry, a dead process's without an end given one now (it ended at the latest when it was
 * found dead: a turn that began after that is not marked for it). Unreadable files are skipped.
 */
async function readEntries(folder: string): Promise<Array<{ file: string; entry: Entry }>> {
  const names = await fs.readdir(folder).catch(() => [] as string[]);
  const found: Array<{ file: string; entry: Entry }> = [];
  for (const name of names.filter((n) => n.endsWith(".json"))) {
    const file = path.join(folder, name);
    const parsed = EntrySchema.safeParse(await fs.readFile(file, "utf8").then(JSON.parse, () => null));
    if (!parsed.success) continue;
    let entry = parsed.data;
    if (
      entry.endedAt === null &&
      entry.host === os.hostname() &&
      !isRunning({ pid: entry.pid, started: entry.started })
    ) {
      entry = { ...entry, endedAt: new Date().toISOString() };
      await writeFileAtomic(file, JSON.stringify(entry) + "\n").catch(() => undefined);
    }
    found.push({ file, entry });
  }
  return found;
}

/** Entries that ended before every live recording began can matter to no turn: removed. */
async function forgetOld(folder: string, now: string): Promise<void> {
  const entries = await readEntries(folder);
  const earliestLive = entries
    .filter((e) => e.entry.endedAt === null)
    .reduce((min, e) => (e.entry.startedAt < min ? e.entry.startedAt : min), now);
  await Promise.all(
    entries
      .filter((e) => e.entry.endedAt !== null && e.entry.endedAt < earliestLive)
      .map((e) => fs.rm(e.file, { force: true })),
  );
}
