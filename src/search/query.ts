/**
 * A search over the index: the query's parts must all match one piece of a turn (its prompt, a
 * tool's output, ...); filters narrow by tool, date, session and the files the turn changed.
 * Best match first (FTS5's bm25); with no words, only `--file`, the turns that changed the file,
 * newest first.
 */
import type { SearchDb } from "./search-db.js";
import { matchExpression, parseQuery, shownText } from "./tokens.js";
import type { Place } from "./turn-docs.js";

export interface SearchFilters {
  /** Paths (relative to the repository, as diffs name them) a matching turn must have changed. */
  files?: string[] | null;
  tool?: string | null;
  /** ISO time: turns ended at or after it. */
  since?: string | null;
  session?: string | null;
  limit: number;
}

export interface SearchHit {
  session: string;
  turn: number;
  /** When the turn ended (ISO). */
  at: string;
  place: Place;
  tool: string | null;
  prompt: string | null;
  /** The whole piece's text, as written. */
  text: string;
  /** Where the query matched in `text`: [start, end) in UTF-16 units. */
  matches: Array<[number, number]>;
}

/** Markers highlight() puts around a match: private-use characters, removed before anything is shown. */
const OPEN = "\ue000";
const CLOSE = "\ue001";

export function search(db: SearchDb, query: string, f: SearchFilters): SearchHit[] {
  const parts = parseQuery(query);
  const where: string[] = [];
  const params: unknown[] = [];
  if (f.tool) where.push("d.tool = ? COLLATE NOCASE"), params.push(f.tool);
  if (f.since) where.push("t.at >= ?"), params.push(f.since);
  if (f.session) where.push("d.session = ?"), params.push(f.session);
  if (f.files) {
    where.push("EXISTS (SELECT 1 FROM files x WHERE x.session = d.session AND x.turn = d.turn AND x.path IN (SELECT value FROM json_each(?)))");
    params.push(JSON.stringify(f.files));
  }
  if (parts.length === 0) return fileTurns(db, where, params, f.limit);
  const sql = `SELECT d.session, d.turn, t.at, d.place, d.tool, t.prompt, highlight(fts, 0, '${OPEN}', '${CLOSE}') AS marked
    FROM fts JOIN docs d ON d.id = fts.rowid JOIN turns t ON t.session = d.session AND t.turn = d.turn
    WHERE fts MATCH ? ${where.map((w) => `AND ${w}`).join(" ")}
    ORDER BY bm25(fts), t.at DESC LIMIT ?`;
  const rows = db.prepare(sql).all(matchExpression(parts), ...params, f.limit) as Array<Omit<SearchHit, "text" | "matches"> & { marked: string }>;
  const hits = rows.map(({ marked, ...row }) => ({ ...row, ...unmark(marked) }));
  // A phrase matched token by token: "a-b" also finds "a b". Keep that; the tokens are what a reader means.
  return hits;
}

/** `--file` alone: the turns that changed the file(s), each with the file names as its text. */
function fileTurns(db: SearchDb, where: string[], params: unknown[], limit: number): SearchHit[] {
  const sql = `SELECT d.session, d.turn, t.at, d.place, d.tool, t.prompt, d.text
    FROM docs d JOIN turns t ON t.session = d.session AND t.turn = d.turn
    WHERE d.place = 'file' ${where.map((w) => `AND ${w}`).join(" ")}
    ORDER BY t.at DESC, d.turn DESC LIMIT ?`;
  const rows = db.prepare(sql).all(...params, limit) as Array<Omit<SearchHit, "matches">>;
  return rows.map((r) => ({ ...r, text: shownText(r.text), matches: [] }));
}

/** The text without the markers and the zero-width cuts, and where the markers were. */
function unmark(marked: string): { text: string; matches: Array<[number, number]> } {
  let text = "";
  const matches: Array<[number, number]> = [];
  let open = -1;
  let from = 0;
  for (const m of marked.matchAll(/[\ue000\ue001\u200b]/g)) {
    text += marked.slice(from, m.index);
    from = m.index + 1;
    if (m[0] === OPEN) open = text.length;
    else if (m[0] === CLOSE && open !== -1) {
      matches.push([open, text.length]);
      open = -1;
    }
  }
  text += marked.slice(from);
  return { text, matches: merge(matches) };
}

/** Adjacent matches (the characters of a CJK word, each a token) read as one. */
function merge(matches: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const m of matches) {
    const last = out.at(-1);
    if (last && m[0] <= last[1]) last[1] = Math.max(last[1], m[1]);
    else out.push([m[0], m[1]]);
  }
  return out;
}
