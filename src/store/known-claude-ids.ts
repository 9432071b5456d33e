/**
 * The claude session ids nudge's bundles hold a transcript of (`claude/<id>.jsonl[.gz]`: recorded,
 * adopted, imported), kept in `<store>/claude-ids.json` with the store's change mark
 * (change-log.ts): while no session was added or removed, only the sessions noted since are
 * listed again, not a thousand `claude/` folders. A cache, never trusted over the bundles: a
 * missing, damaged or too old one is made again from every folder. A bundle's transcript copy is
 * written while its turn is saved, before the turn's record (whose note brings it here).
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { changedSince, changeMark, parseMark, type ChangeMark } from "./change-log.js";

const CACHE = "claude-ids.json";
const NAME = /^([A-Za-z0-9_-]{1,128})\.jsonl(\.gz)?$/;

interface Cache {
  mark: ChangeMark;
  /** Each session folder's claude ids. */
  sessions: Record<string, string[]>;
}

/** `cache`: read and kept in the store's cache (for a search); else listed from every folder, nothing written (a dry run writes nothing). */
export async function knownClaudeIds(storeDir: string, o: { cache?: boolean } = {}): Promise<Set<string>> {
  if (!o.cache) return idsIn(await listAll(path.join(storeDir, "sessions")));
  const mark = changeMark(storeDir);
  const file = path.join(storeDir, CACHE);
  const cache = readCache(file);
  const noted = cache && changedSince(storeDir, cache.mark, mark);
  const sessionsDir = path.join(storeDir, "sessions");
  let sessions: Record<string, string[]>;
  let keep: ChangeMark;
  if (noted) {
    if (noted.ids.size === 0 && noted.at === cache.mark.at) return idsIn(cache.sessions);
    sessions = cache.sessions;
    for (const id of noted.ids) {
      const ids = idsOf(sessionsDir, id);
      if (ids === null) delete sessions[id];
      else sessions[id] = ids;
    }
    // The time of the last full listing is kept: one is made at least every so often.
    keep = { ...mark, at: noted.at, taken: cache.mark.taken };
  } else {
    sessions = await listAll(sessionsDir);
    keep = mark;
  }
  if (keep.folder !== "") saveCache(file, { mark: keep, sessions });
  return idsIn(sessions);
}

async function listAll(sessionsDir: string): Promise<Record<string, string[]>> {
  const sessions = Object.create(null) as Record<string, string[]>;
  const folders = await readdir(sessionsDir).catch(() => [] as string[]);
  await Promise.all(
    folders.map(async (id) => {
      const names = await readdir(path.join(sessionsDir, id, "claude")).catch(() => null);
      if (names) sessions[id] = claudeIds(names);
    }),
  );
  return sessions;
}

function idsIn(sessions: Record<string, string[]>): Set<string> {
  return new Set(Object.values(sessions).flat());
}

function claudeIds(names: string[]): string[] {
  const ids: string[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (m) ids.push(m[1]!);
  }
  return ids;
}

function idsOf(sessionsDir: string, id: string): string[] | null {
  try {
    return claudeIds(readdirSync(path.join(sessionsDir, id, "claude")));
  } catch {
    return null;
  }
}

function readCache(file: string): Cache | null {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as Partial<Cache> | null;
    const mark = parseMark(value?.mark);
    const sessions = value?.sessions;
    if (!mark || typeof sessions !== "object" || sessions === null) return null;
    const out = Object.create(null) as Record<string, string[]>;
    for (const [id, ids] of Object.entries(sessions)) {
      if (!Array.isArray(ids) || !ids.every((x) => typeof x === "string" && /^[A-Za-z0-9_-]{1,128}$/.test(x)))
        return null;
      out[id] = ids as string[];
    }
    return { mark, sessions: out };
  } catch {
    return null;
  }
}

/** Replaced whole (temp file, rename); not synced: a cache lost in a crash is made again. */
function saveCache(file: string, cache: Cache): void {
  // Named as atomic-write.ts names its temp files, so that one a kill leaves is swept the same way.
  const temp = path.join(path.dirname(file), `.${CACHE}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    writeFileSync(temp, JSON.stringify(cache));
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true });
  }
}
