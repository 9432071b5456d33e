/**
 * The store's change log, `<store>/sessions-changed.log`: a line with a session's id appended
 * after each write of its header or turn journal (the files a session's content is read from).
 * With the sessions folder's own identity (a session added or removed changes it) it lets a cache
 * of every session (the search index, the claude ids nudge holds) tell what changed since it was
 * made by two stats and a read of the log's new bytes, instead of a stat per session.
 *
 * A note is appended after its change, so a reader that sees the note sees the change. A note
 * that cannot be written touches the sessions folder instead: readers then check every session.
 * A mark whose folder changed within RACY_MS of being taken is never trusted (a change within the
 * same clock tick would leave the folder's time as it was), nor one older than TRUST_MS: a nudge
 * killed between a write and its note is caught by a full check at least that often.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, utimesSync, writeSync } from "node:fs";
import path from "node:path";
import { openCacheFile } from "../base/cache-file.js";

const LOG = "sessions-changed.log";
const RACY_MS = 2_000;
const TRUST_MS = 10 * 60_000;
/** More new bytes than this: checking every session is as quick as reading them. */
const MAX_READ = 1 << 20;
const ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The sessions folder and the log as they were at one moment. */
export interface ChangeMark {
  /** The sessions folder's "ino:mtimeMs"; "" when it is missing or changed too recently to tell. */
  folder: string;
  /** The log's inode (0: no log yet) and its length (up to its last whole line). */
  log: number;
  at: number;
  /** When the mark was taken (ms since the epoch). */
  taken: number;
}

/** Note that session `dir` (a bundle folder in a store's sessions folder) changed; call after the change. */
export function noteSessionChanged(dir: string): void {
  const sessions = path.dirname(dir);
  const id = path.basename(dir);
  // A bundle being built elsewhere (a dot-folder, a temp folder) is noted by its folder's rename into the store.
  if (path.basename(sessions) !== "sessions" || !ID.test(id) || id.startsWith(".")) return;
  try {
    appendLine(path.join(path.dirname(sessions), LOG), id + "\n");
  } catch {
    try {
      const now = new Date();
      utimesSync(sessions, now, now);
    } catch {
      // Neither can be written: the store's folder is read-only, and so nothing was changed in it either.
    }
  }
}

/**
 * Append to the log when it is a file: a FIFO put in its place would block the writer until
 * something reads it (a rewind stopped halfway), so it is opened without waiting and refused.
 */
function appendLine(file: string, line: string): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK, 0o666);
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${file} is not a file`);
    writeSync(fd, line);
  } finally {
    closeSync(fd);
  }
}

export function changeMark(storeDir: string, now = Date.now()): ChangeMark {
  const folder = statSync(path.join(storeDir, "sessions"), { throwIfNoEntry: false });
  const log = statSync(path.join(storeDir, LOG), { throwIfNoEntry: false });
  return {
    folder: folder && now - folder.mtimeMs >= RACY_MS ? `${folder.ino}:${folder.mtimeMs}` : "",
    log: log?.ino ?? 0,
    at: log?.size ?? 0,
    taken: now,
  };
}

/**
 * The sessions noted between two marks, and where the log's whole lines end (the `at` to keep);
 * null when that cannot be told: a session added or removed, the log replaced, too old a mark.
 */
export function changedSince(
  storeDir: string,
  from: ChangeMark,
  to: ChangeMark,
): { ids: Set<string>; at: number } | null {
  if (from.folder === "" || from.folder !== to.folder || from.log !== to.log || to.at < from.at) return null;
  if (to.taken - from.taken > TRUST_MS || to.taken < from.taken || to.at - from.at > MAX_READ) return null;
  const ids = new Set<string>();
  if (to.at === from.at) return { ids, at: from.at };
  let fd: number | null = null;
  try {
    fd = openCacheFile(path.join(storeDir, LOG));
    if (fd === null) return null;
    const buffer = Buffer.alloc(to.at - from.at);
    const read = readSync(fd, buffer, 0, buffer.length, from.at);
    const whole = buffer.subarray(0, read).lastIndexOf(0x0a) + 1;
    for (const line of buffer.toString("utf8", 0, whole).split("\n")) if (ID.test(line)) ids.add(line);
    return { ids, at: from.at + whole };
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** A mark as kept in a cache (JSON); null for anything else. */
export function parseMark(value: unknown): ChangeMark | null {
  const m = value as Partial<ChangeMark> | null;
  return m !== null &&
    typeof m === "object" &&
    typeof m.folder === "string" &&
    [m.log, m.at, m.taken].every((n) => typeof n === "number" && Number.isFinite(n) && n >= 0)
    ? { folder: m.folder, log: m.log!, at: m.at!, taken: m.taken! }
    : null;
}
