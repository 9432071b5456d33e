/**
 * The search index's database: SQLite with FTS5 (better-sqlite3), one file beside the store at
 * `<store>/search/index.sqlite`. It holds nothing that is not in the bundles: a missing, stale or
 * damaged file is rebuilt from them (catch-up.ts). Writes are SQLite transactions in WAL mode, so a
 * kill -9 mid-update leaves the last committed state; SQLite's own locks keep concurrent searches
 * (and their catch-ups) from writing over each other.
 */
import { mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import Database from "better-sqlite3";
import type { Store } from "../store/store.js";

export type SearchDb = Database.Database;

/** Bumped when the tables or the text put into them change: an index of another version is rebuilt. */
const INDEX_VERSION = "7";

/** Pieces of one second: ids are the turn's end in seconds times this, plus the piece's number (all below 2^53 until the year 6000). */
const PIECES_PER_SECOND = 65_536;

/** The first free id for a piece of a turn that ended at `at` (ISO): ids sort as the turns' times. */
export function pieceId(db: SearchDb, at: string): number {
  const ms = Date.parse(at);
  const base = (Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) : 0) * PIECES_PER_SECOND;
  const last = (
    db.prepare("SELECT max(id) AS id FROM docs WHERE id >= ? AND id < ?").get(base, base + PIECES_PER_SECOND) as {
      id: number | null;
    }
  ).id;
  return last === null ? base : last + 1;
}

export function indexFile(store: Store): string {
  return path.join(store.dir, "search", "index.sqlite");
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  -- What each session looked like when indexed: a changed stamp sends it through catch-up again.
  CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, stamp TEXT NOT NULL);
  -- One row per indexed turn; key changes when the turn was saved again (a repair).
  CREATE TABLE IF NOT EXISTS turns (
    session TEXT NOT NULL, turn INTEGER NOT NULL, key TEXT NOT NULL, at TEXT NOT NULL, prompt TEXT,
    PRIMARY KEY (session, turn));
  -- One row per searchable piece of a turn: where it came from. Its id grows with the turn's end
  -- (pieceId): FTS5 walks matches in rowid order, so newest first is a walk that stops at the limit.
  CREATE TABLE IF NOT EXISTS docs (
    id INTEGER PRIMARY KEY, session TEXT NOT NULL, turn INTEGER NOT NULL, place TEXT NOT NULL, tool TEXT);
  CREATE INDEX IF NOT EXISTS docs_turn ON docs (session, turn);
  -- Each piece's text, for snippets, apart from docs so that filtering pieces never reads it: where
  -- a recorded session's conversation.jsonl holds it as a JSON string (at, len: its bytes there),
  -- or else deflated (zip). The full-text table keeps only the tokens (contentless): the text
  -- that is in the recording is not stored again.
  CREATE TABLE IF NOT EXISTS texts (id INTEGER PRIMARY KEY, zip BLOB, at INTEGER, len INTEGER);
  -- text: the piece cut as tokens.ts cuts it; tails: the last character of each CJK run in it.
  CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, tails, content='', contentless_delete=1, detail=column, tokenize='unicode61 remove_diacritics 2');
  -- The files each turn changed (place 'turn') and the user's edits before it (place 'edits').
  CREATE TABLE IF NOT EXISTS files (session TEXT NOT NULL, turn INTEGER NOT NULL, path TEXT NOT NULL, place TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS files_turn ON files (session, turn);
  CREATE INDEX IF NOT EXISTS files_path ON files (path);
`;

/** Open (or make) the index; one of another version, or one SQLite cannot read, is removed and made anew. */
export function openSearchDb(store: Store): SearchDb {
  const file = indexFile(store);
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    return prepare(file);
  } catch (error) {
    if (!isDamage(error)) throw error;
    removeIndex(file);
    return prepare(file);
  }
}

/**
 * better-sqlite3's compiled addon, found once where npm builds it: left to itself, better-sqlite3
 * asks the `bindings` package, which tries a dozen paths (~20 ms of every search's start).
 */
const ADDON = ((): string | undefined => {
  try {
    return createRequire(import.meta.url).resolve("better-sqlite3/build/Release/better_sqlite3.node");
  } catch {
    return undefined;
  }
})();

function prepare(file: string): SearchDb {
  const db = new Database(file, ADDON ? { nativeBinding: ADDON } : {});
  try {
    // First, so that even switching a new file to WAL waits for a search making it at the same time.
    db.pragma("busy_timeout = 30000");
    // WAL: searches read while another process writes; a torn write is rolled back on open.
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL"); // the index can be rebuilt: durability of the last commit is not needed
    const version = hasMeta(db)
      ? (db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as { value: string } | undefined)?.value
      : undefined;
    if (version !== undefined && version !== INDEX_VERSION) {
      db.close();
      removeIndex(file);
      return prepare(file);
    }
    // The version row is written after the whole schema: with it, the tables are there (no write, no parse of the schema).
    if (version === INDEX_VERSION) return db;
    db.exec(SCHEMA);
    db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('version', ?)").run(INDEX_VERSION);
    return db;
  } catch (error) {
    if (db.open) db.close();
    throw error;
  }
}

function hasMeta(db: SearchDb): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
}

/** SQLite's codes for a file that is not (or no longer) a sound database. */
export function isDamage(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

export function removeIndex(file: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
}
