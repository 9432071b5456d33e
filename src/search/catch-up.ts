/**
 * Bring the index up to date with the store: every search starts here, so a session recorded
 * while the index was missing, imported, fetched or repaired is found, a removed one is dropped,
 * and an index deleted (or left half-written by a kill -9) is rebuilt. A session is looked at by
 * the stat of its folder (a new manifest is renamed into it at each saved turn): an unchanged
 * session costs one stat. A changed one has only its new turns read. When no session was added or
 * removed since the last catch-up, only the sessions the store's change log (change-log.ts) names
 * since then are looked at: a search of an unchanged store costs two stats, not one per session.
 *
 * Each session's changes are one transaction that first checks the stamp again: two searches
 * catching up at once read the same turns, one writes them, the other finds the work done.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { deflateRawSync } from "node:zlib";
import { isDiskFull } from "../base/errors.js";
import { bundleDir, bundleFiles, loadSession, sessionIds, type StoredSession, type Store } from "../store/store.js";
import type { Turn } from "../store/manifest-schema.js";
import { faultPoint } from "../base/fault-injection.js";
import { changedSince, changeMark, parseMark, type ChangeMark } from "../store/change-log.js";
import { indexedText, runTails } from "./tokens.js";
import { pieceId, type SearchDb } from "./search-db.js";
import type { TurnDoc, TurnFile } from "./turn-docs.js";

export interface CatchUpReport {
  sessions: number;
  turns: number;
  removed: number;
  /** Sessions that could not be read (a damaged bundle): left out, each with why. */
  skipped: Array<{ id: string; why: string }>;
  /** The store's sessions, and how many of them were left to the background indexer, not indexed yet. */
  total: number;
  left: number;
}

/** Told once before a catch-up of this many sessions or more begins (a first search over a large store takes a while). */
const NOTICE_SESSIONS = 50;

export async function catchUp(
  db: SearchDb,
  store: Store,
  onLongCatchUp?: (sessions: number) => void,
  /** More changed sessions than this are not indexed here (the caller has them indexed in the background). */
  inlineLimit = Infinity,
): Promise<CatchUpReport> {
  // Taken before anything is read: a change made later is noted after it, and seen by the next catch-up.
  const mark = changeMark(store.dir);
  const saved = savedMark(db);
  const noted = saved && changedSince(store.dir, saved.mark, mark);
  const root = path.dirname(bundleDir(store, "-"));
  if (noted) {
    // No session added or removed since the last full check: only those noted since are looked at.
    const report: CatchUpReport = { sessions: 0, turns: 0, removed: 0, skipped: [], total: saved.total, left: 0 };
    const stampNow = db.prepare("SELECT stamp FROM sessions WHERE id = ?");
    const stamps = new Map([...noted.ids].map((id) => [id, stampOf(store, id, root)]));
    const changed = [...stamps]
      .filter(([id, stamp]) => stamp !== "-" && (stampNow.get(id) as { stamp: string } | undefined)?.stamp !== stamp)
      .map(([id]) => id);
    await indexChanged(db, store, changed, stamps, report, inlineLimit, onLongCatchUp);
    // The time of the last full check is kept: one is made at least every so often (change-log.ts).
    saveMark(db, { ...mark, at: noted.at, taken: saved.mark.taken }, report, saved);
    return report;
  }
  const known = new Map(
    (db.prepare("SELECT id, stamp FROM sessions").all() as Array<{ id: string; stamp: string }>).map((r) => [
      r.id,
      r.stamp,
    ]),
  );
  const ids = await sessionIds(store);
  const report: CatchUpReport = { sessions: 0, turns: 0, removed: 0, skipped: [], total: ids.length, left: 0 };
  const stamps = new Map(ids.map((id) => [id, stampOf(store, id, root)]));
  const changed = ids.filter((id) => known.get(id) !== stamps.get(id));
  await indexChanged(db, store, changed, stamps, report, inlineLimit, onLongCatchUp);
  const present = new Set(ids);
  for (const id of known.keys()) {
    // claude's own sessions (ids with "-") are kept by claude-index.ts, not by the store.
    if (present.has(id) || id.includes("-")) continue;
    db.transaction(() => dropSession(db, id)).immediate();
    report.removed++;
  }
  saveMark(db, mark, report, saved);
  return report;
}

async function indexChanged(
  db: SearchDb,
  store: Store,
  ids: string[],
  stamps: Map<string, string>,
  report: CatchUpReport,
  inlineLimit: number,
  onLongCatchUp?: (sessions: number) => void,
): Promise<void> {
  // Newest first: a search while the first build runs finds the recent sessions first.
  const changed = ids.sort((a, b) => mtime(stamps, b) - mtime(stamps, a));
  if (changed.length > inlineLimit) return void (report.left = changed.length);
  if (changed.length >= NOTICE_SESSIONS) onLongCatchUp?.(changed.length);
  for (const id of changed) {
    try {
      report.turns += await indexSession(db, store, id, stamps.get(id)!);
      report.sessions++;
    } catch (error) {
      // A bundle that cannot be read is left out; the index that cannot be written (a full disk) is no answer at all.
      if (isDiskFull(error) || /^SQLITE_/.test(String((error as { code?: unknown }).code))) throw error;
      report.skipped.push({ id, why: (error as Error).message });
    }
  }
}

/**
 * The store's change mark as of the last catch-up that left every session indexed, and how many
 * sessions there were. Kept only then: a session skipped (damaged) or left to the background
 * indexer is looked at again by the next full check.
 */
function savedMark(db: SearchDb): { mark: ChangeMark; total: number; value: string } | null {
  const row = db.prepare("SELECT value FROM meta WHERE key = 'mark'").get() as { value: string } | undefined;
  if (!row) return null;
  try {
    const value = JSON.parse(row.value) as { mark?: unknown; total?: unknown };
    const mark = parseMark(value.mark);
    return mark && Number.isSafeInteger(value.total) ? { mark, total: value.total as number, value: row.value } : null;
  } catch {
    return null;
  }
}

function saveMark(db: SearchDb, mark: ChangeMark, report: CatchUpReport, saved: { value: string } | null): void {
  if (report.left > 0 || report.skipped.length > 0 || mark.folder === "") {
    db.prepare("DELETE FROM meta WHERE key = 'mark'").run();
    return;
  }
  const value = JSON.stringify({ mark, total: report.total });
  // Unchanged (most searches): no write, so a search of an unchanged store takes no write lock.
  if (value === saved?.value) return;
  db.prepare(
    "INSERT INTO meta (key, value) VALUES ('mark', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  ).run(value);
}

/** The turn journal's name in a bundle (bundleFiles(dir).journal). */
const JOURNAL = path.basename(bundleFiles("/").journal);

function mtime(stamps: Map<string, string>, id: string): number {
  return Number(stamps.get(id)!.split(":")[1]) || 0;
}

/**
 * What changes when a turn is saved (or the session is repaired, imported again, rewound): the
 * session folder's own mtime, since each of those ends by renaming a new manifest into it; and the
 * turn journal's size, since a turn is saved once its record is appended there, before the header
 * says so (a nudge killed between the two leaves only the record). Two stats per session,
 * synchronous: at a thousand sessions, promises and their garbage cost more than the stats themselves.
 */
export function stampOf(store: Store, id: string, sessions = path.dirname(bundleDir(store, id))): string {
  // Joined by hand: path.join (and bundleFiles' dozen of them) cost more than the two stats, a thousand times a search.
  const dir = sessions + path.sep + id;
  const s = statSync(dir, { throwIfNoEntry: false });
  if (!s) return "-";
  const journal = statSync(dir + path.sep + JOURNAL, { throwIfNoEntry: false });
  return `${s.ino}:${s.mtimeMs}:${journal?.size ?? "-"}`;
}

/** What identifies a saved turn's content: a repair, a re-import or a loop's check added later changes one of these. */
function turnKey(turn: Turn): string {
  const check = turn.check ? `${turn.check.exitCode}:${turn.check.durationMs}` : "";
  return `${turn.endedAt}|${turn.patch.sha256}|${turn.lines.from}|${turn.bytes?.from ?? ""}|${check}`;
}

interface Indexed {
  turn: Turn;
  docs: TurnDoc[];
  files: TurnFile[];
}

/** Index a session's turns not yet indexed (all of them when some indexed one no longer matches). Returns how many. */
export async function indexSession(db: SearchDb, store: Store, id: string, stamp: string): Promise<number> {
  const s = await loadSession(store, id);
  const saved = s.manifest.turns.filter((t) => t.n > 0);
  const have = new Map(
    (db.prepare("SELECT turn, key FROM turns WHERE session = ?").all(id) as Array<{ turn: number; key: string }>).map(
      (r) => [r.turn, r.key],
    ),
  );
  const keys = new Map(saved.map((t) => [t.n, turnKey(t)]));
  const stale = [...have].some(([n, key]) => keys.get(n) !== key);
  const todo = stale ? saved : saved.filter((t) => !have.has(t.n));
  const indexed = await readTurns(s, todo);
  db.transaction(() => {
    const current = db.prepare("SELECT stamp FROM sessions WHERE id = ?").get(id) as { stamp: string } | undefined;
    if (current?.stamp === stamp) return; // another search did it meanwhile
    if (stale) dropSession(db, id);
    else for (const t of indexed) dropTurn(db, id, t.turn.n); // a turn half-seen by a concurrent catch-up
    for (const t of indexed) {
      insertTurn(db, id, t);
      faultPoint("search-index-turn"); // the crash tests kill here, mid-transaction
    }
    db.prepare(
      "INSERT INTO sessions (id, stamp) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp",
    ).run(id, stamp);
    // IMMEDIATE: the write lock is taken (waiting on busy_timeout) before the stamp is read; a
    // deferred transaction that reads, then writes after another search wrote, fails at once.
  }).immediate();
  return indexed.length;
}

async function readTurns(s: StoredSession, turns: Turn[]): Promise<Indexed[]> {
  const out: Indexed[] = [];
  // Loaded only when there is a turn to index: it brings the view layer, which a search of an up-to-date index never needs.
  const { turnDocs } = await import("./turn-docs.js");
  for (const turn of turns) out.push({ turn, ...(await turnDocs(s, turn)) });
  return out;
}

function insertTurn(db: SearchDb, id: string, t: Indexed): void {
  insertPieces(
    db,
    id,
    { n: t.turn.n, key: turnKey(t.turn), at: t.turn.endedAt, prompt: t.turn.prompt },
    t.docs,
    t.files,
  );
}

/** One turn's row and its searchable pieces (a recorded turn's, or one of claude's own sessions'). */
export function insertPieces(
  db: SearchDb,
  id: string,
  turn: { n: number; key: string; at: string; prompt: string | null },
  docs: TurnDoc[],
  files: TurnFile[],
): void {
  db.prepare("INSERT INTO turns (session, turn, key, at, prompt) VALUES (?, ?, ?, ?, ?)").run(
    id,
    turn.n,
    turn.key,
    turn.at,
    turn.prompt,
  );
  const doc = db.prepare("INSERT INTO docs (id, session, turn, place, tool) VALUES (?, ?, ?, ?, ?)");
  const zip = db.prepare("INSERT INTO texts (id, zip, at, len) VALUES (?, ?, ?, ?)");
  const fts = db.prepare("INSERT INTO fts (rowid, text, tails) VALUES (?, ?, ?)");
  let piece = pieceId(db, turn.at);
  for (const d of docs) {
    const text = d.text.normalize("NFKC");
    doc.run(piece, id, turn.n, d.place, d.tool);
    // Level 1: at the default level deflating took as long as SQLite's indexing of the same text.
    if (d.ref) zip.run(piece, null, d.ref.offset, d.ref.length);
    else zip.run(piece, deflateRawSync(text, { level: 1 }), null, null);
    fts.run(piece, indexedText(text), runTails(text));
    piece++;
  }
  const file = db.prepare("INSERT INTO files (session, turn, path, place) VALUES (?, ?, ?, ?)");
  for (const f of files) file.run(id, turn.n, f.path, f.place);
}

function dropTurn(db: SearchDb, id: string, n: number): void {
  dropDocs(db, "SELECT id FROM docs WHERE session = ? AND turn = ?", [id, n]);
  db.prepare("DELETE FROM files WHERE session = ? AND turn = ?").run(id, n);
  db.prepare("DELETE FROM turns WHERE session = ? AND turn = ?").run(id, n);
}

export function dropSession(db: SearchDb, id: string): void {
  dropDocs(db, "SELECT id FROM docs WHERE session = ?", [id]);
  db.prepare("DELETE FROM files WHERE session = ?").run(id);
  db.prepare("DELETE FROM turns WHERE session = ?").run(id);
  db.prepare("DELETE FROM sessions WHERE id = ?").run(id);
}

function dropDocs(db: SearchDb, select: string, params: unknown[]): void {
  const ids = JSON.stringify((db.prepare(select).all(...params) as Array<{ id: number }>).map((r) => r.id));
  db.prepare("DELETE FROM fts WHERE rowid IN (SELECT value FROM json_each(?))").run(ids);
  db.prepare("DELETE FROM texts WHERE id IN (SELECT value FROM json_each(?))").run(ids);
  db.prepare("DELETE FROM docs WHERE id IN (SELECT value FROM json_each(?))").run(ids);
}
