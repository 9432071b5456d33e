/**
 * The claude session ids nudge's bundles hold a transcript of (`claude/<id>.jsonl[.gz]`: recorded,
 * adopted, imported), kept in `<store>/claude-ids.json` with the store's change mark
 * (change-log.ts): while no session was added or removed, only the sessions noted since are
 * listed again, not a thousand `claude/` folders. A cache, never trusted over the bundles: a
 * missing, damaged or too old one is made again from every folder. A bundle's transcript copy is
 * written while its turn is saved, before the turn's record (whose note brings it here).
 */
import { readdirSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { readCacheFile, writeCacheFile } from "../base/cache-file.js";
import * as z from "../base/zod.js";
import { changedSince, changeMark, parseMark, type ChangeMark } from "./change-log.js";

const CACHE = "claude-ids.json";
const NAME = /^([A-Za-z0-9_-]{1,128})\.jsonl(\.gz)?$/;
const CacheSchema = z.object({
  mark: z.unknown(),
  sessions: z.record(z.string(), z.array(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,128}$/)))),
});

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
  if (keep.folder !== "") await writeCacheFile(file, JSON.stringify({ mark: keep, sessions }));
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
  let json: unknown;
  try {
    json = JSON.parse(readCacheFile(file) ?? "");
  } catch {
    return null;
  }
  const value = CacheSchema.safeParse(json);
  const mark = value.success ? parseMark(value.data.mark) : null;
  // A null-prototype copy: a session folder named like an Object property is only a key.
  return mark
    ? { mark, sessions: Object.assign(Object.create(null) as Record<string, string[]>, value.data!.sessions) }
    : null;
}

/** Each claude session id the bundles hold, with the nudge sessions holding it (a fork's bundle may hold its parent's too); listed from every folder. */
export async function claudeIdHolders(storeDir: string): Promise<Map<string, string[]>> {
  const held = new Map<string, string[]>();
  for (const [id, ids] of Object.entries(await listAll(path.join(storeDir, "sessions"))))
    for (const claude of ids) held.set(claude, [...(held.get(claude) ?? []), id]);
  // A folder may hold an id twice (plain and gzipped).
  for (const [claude, ids] of held) held.set(claude, [...new Set(ids)].sort());
  return held;
}
