/**
 * Who records in a work tree, and when: one small file per recording process, in
 * `<store>/locks/worktree-<hash>.recordings/`. The work-tree lock lets one recording at a time
 * in, but `claude run --force` records alongside another: then what either one's turn captures
 * may be the other's doing, and nothing in the files says whose. So each recording asks, as a
 * turn ends, which others were live during it, and the turn says so (turn-save.ts). A plain claude
 * recorded through installed hooks has no nudge process of its own: its entry names claude's.
 *
 * Live is not enough: two claudes open side by side for hours, used one at a time, change nothing
 * under each other. A turn is marked only when the other session had a turn running during it
 * (from its journal; one whose journal cannot be read counts as running).
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as z from "../base/zod.js";
import { ensureDir, writeFileAtomic } from "./atomic-write.js";
import { isRunning, processStart } from "./locks.js";
import { workTreeLockFile } from "./work-tree-lock.js";
import { bundleDir, readManifest, type Store } from "./store.js";

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

const recordingsFolder = (store: Store, root: string) =>
  workTreeLockFile(store, root).replace(/\.lock$/, ".recordings");

const newEntry = (pid: number, sessionId: string): Entry => ({
  host: os.hostname(),
  pid,
  started: processStart(pid),
  sessions: [sessionId],
  startedAt: new Date().toISOString(),
  endedAt: null,
});

export async function registerRecording(store: Store, root: string, sessionId: string): Promise<RecordingRegistration> {
  const folder = recordingsFolder(store, root);
  await ensureDir(folder);
  const file = path.join(folder, `${process.pid}-${randomBytes(4).toString("hex")}.json`);
  let mine = newEntry(process.pid, sessionId);
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
    during: async (from, to) => sharedDuring(store, await others(), mine.sessions, from, to),
    end: async () => {
      mine = { ...mine, endedAt: new Date().toISOString() };
      await write().catch(() => undefined);
    },
  };
}

/**
 * The session of a plain claude (process `claudePid`) recorded through installed hooks, one short
 * process per hook: its entry, made by the first hook that opens the session, names claude, so
 * it ends when claude does. Each hook's process may ask `during` for a turn it saves.
 */
export async function claimForClaude(
  store: Store,
  root: string,
  sessionId: string,
  claudePid: number,
): Promise<Pick<RecordingRegistration, "during">> {
  const folder = recordingsFolder(store, root);
  const file = path.join(folder, `claude-${claudePid}-${sessionId}.json`);
  const entry = EntrySchema.safeParse(await fs.readFile(file, "utf8").then(JSON.parse, () => null));
  if (!entry.success || entry.data.endedAt !== null) {
    await ensureDir(folder);
    const mine = newEntry(claudePid, sessionId);
    await forgetOld(folder, mine.startedAt);
    await writeFileAtomic(file, JSON.stringify(mine) + "\n");
  }
  return {
    during: async (from, to) =>
      sharedDuring(
        store,
        (await readEntries(folder)).filter((e) => e.file !== file),
        [sessionId],
        from,
        to,
      ),
  };
}

/** The other sessions that recorded a turn in this work tree between `from` and `to`. */
async function sharedDuring(
  store: Store,
  others: Array<{ entry: Entry }>,
  mine: string[],
  from: string,
  to: string,
): Promise<string[]> {
  // An earlier recording of these same sessions (a nudge killed mid-turn, its turn recovered
  // now) is not another's work in the tree.
  const live = others.filter(
    ({ entry }) =>
      entry.startedAt <= to && (entry.endedAt ?? to) >= from && !entry.sessions.some((id) => mine.includes(id)),
  );
  const sessions = [...new Set(live.map((e) => e.entry.sessions.at(-1)!))];
  const busy = await Promise.all(sessions.map((id) => turnRanDuring(store, id, from, to)));
  return sessions.filter((_, i) => busy[i]);
}

/** Did session `id` have a turn running at some moment between `from` and `to`? */
async function turnRanDuring(store: Store, id: string, from: string, to: string): Promise<boolean> {
  let manifest;
  try {
    manifest = await readManifest(bundleDir(store, id));
  } catch {
    return true;
  }
  // A turn begun and not saved is running still, unless its end was noted.
  const spans = [
    ...manifest.turns.filter((t) => t.n > 0).map((t) => [t.startedAt, t.endedAt] as const),
    ...manifest.unsaved.map((u) => [u.startedAt, u.ended?.endedAt ?? to] as const),
  ];
  return spans.some(([start, end]) => start <= to && end >= from);
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
