/**
 * Bring the index up to date with the store: every search starts here, so a session recorded
 * while the index was missing, imported, fetched or repaired is found, a removed one is dropped,
 * and an index deleted (or left half-written by a kill -9) is rebuilt. A session is looked at by
 * the stat of its manifest and journal (the header is rewritten, the journal appended, at each
 * saved turn): an unchanged session costs two stats. A changed one has only its new turns read.
 *
 * Each session's changes are one transaction that first checks the stamp again: two searches
 * catching up at once read the same turns, one writes them, the other finds the work done.
 */
import { promises as fs } from "node:fs";
import { bundleDir, bundleFiles, loadSession, sessionIds, type StoredSession, type Store } from "../bundle/store.js";
import type { Turn } from "../bundle/manifest-schema.js";
import { faultPoint } from "../fault-injection.js";
import { indexedText } from "./tokens.js";
import type { SearchDb } from "./search-db.js";
import { turnDocs, type TurnDoc, type TurnFile } from "./turn-docs.js";

export interface CatchUpReport {
  sessions: number;
  turns: number;
  removed: number;
  /** Sessions that could not be read (a damaged bundle): left out, each with why. */
  skipped: Array<{ id: string; why: string }>;
}

export async function catchUp(db: SearchDb, store: Store): Promise<CatchUpReport> {
  const report: CatchUpReport = { sessions: 0, turns: 0, removed: 0, skipped: [] };
  const known = new Map((db.prepare("SELECT id, stamp FROM sessions").all() as Array<{ id: string; stamp: string }>).map((r) => [r.id, r.stamp]));
  const ids = await sessionIds(store);
  const stamps = await Promise.all(ids.map((id) => stampOf(store, id)));
  for (const [i, id] of ids.entries()) {
    const stamp = stamps[i]!;
    if (known.get(id) === stamp) continue;
    try {
      report.turns += await indexSession(db, store, id, stamp);
      report.sessions++;
    } catch (error) {
      report.skipped.push({ id, why: (error as Error).message });
    }
  }
  const present = new Set(ids);
  for (const id of known.keys()) {
    if (present.has(id)) continue;
    db.transaction(() => dropSession(db, id))();
    report.removed++;
  }
  return report;
}

/** What changes when a turn is saved (or the session is repaired, imported again, rewound). */
async function stampOf(store: Store, id: string): Promise<string> {
  const files = bundleFiles(bundleDir(store, id));
  const [manifest, journal] = await Promise.all([fs.stat(files.manifest).catch(() => null), fs.stat(files.journal).catch(() => null)]);
  const part = (s: { size: number; mtimeMs: number; ino: number } | null) => (s ? `${s.ino}:${s.size}:${s.mtimeMs}` : "-");
  return `${part(manifest)}/${part(journal)}`;
}

/** What identifies a saved turn's content: a repair or a re-import that rewrote it changes one of these. */
function turnKey(turn: Turn): string {
  return `${turn.endedAt}|${turn.patch.sha256}|${turn.lines.from}|${turn.bytes?.from ?? ""}`;
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
  const have = new Map((db.prepare("SELECT turn, key FROM turns WHERE session = ?").all(id) as Array<{ turn: number; key: string }>).map((r) => [r.turn, r.key]));
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
    db.prepare("INSERT INTO sessions (id, stamp) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp").run(id, stamp);
  })();
  return indexed.length;
}

async function readTurns(s: StoredSession, turns: Turn[]): Promise<Indexed[]> {
  const out: Indexed[] = [];
  for (const turn of turns) out.push({ turn, ...(await turnDocs(s, turn)) });
  return out;
}

function insertTurn(db: SearchDb, id: string, t: Indexed): void {
  db.prepare("INSERT INTO turns (session, turn, key, at, prompt) VALUES (?, ?, ?, ?, ?)").run(id, t.turn.n, turnKey(t.turn), t.turn.endedAt, t.turn.prompt);
  const doc = db.prepare("INSERT INTO docs (session, turn, place, tool, text) VALUES (?, ?, ?, ?, ?)");
  const fts = db.prepare("INSERT INTO fts (rowid, text) VALUES (?, ?)");
  for (const d of t.docs) {
    const text = indexedText(d.text);
    const row = doc.run(id, t.turn.n, d.place, d.tool, text);
    fts.run(row.lastInsertRowid, text);
  }
  const file = db.prepare("INSERT INTO files (session, turn, path, place) VALUES (?, ?, ?, ?)");
  for (const f of t.files) file.run(id, t.turn.n, f.path, f.place);
}

function dropTurn(db: SearchDb, id: string, n: number): void {
  dropDocs(db, "SELECT id, text FROM docs WHERE session = ? AND turn = ?", [id, n]);
  db.prepare("DELETE FROM files WHERE session = ? AND turn = ?").run(id, n);
  db.prepare("DELETE FROM turns WHERE session = ? AND turn = ?").run(id, n);
}

function dropSession(db: SearchDb, id: string): void {
  dropDocs(db, "SELECT id, text FROM docs WHERE session = ?", [id]);
  db.prepare("DELETE FROM files WHERE session = ?").run(id);
  db.prepare("DELETE FROM turns WHERE session = ?").run(id);
  db.prepare("DELETE FROM sessions WHERE id = ?").run(id);
}

/** An external-content FTS5 table forgets a row only when told its old text. */
function dropDocs(db: SearchDb, select: string, params: unknown[]): void {
  const rows = db.prepare(select).all(...params) as Array<{ id: number; text: string }>;
  const forget = db.prepare("INSERT INTO fts (fts, rowid, text) VALUES ('delete', ?, ?)");
  for (const r of rows) forget.run(r.id, r.text);
  db.prepare(`DELETE FROM docs WHERE id IN (SELECT value FROM json_each(?))`).run(JSON.stringify(rows.map((r) => r.id)));
}
