/**
 * A search over the index: the query's parts must all match one piece of a turn (its prompt, a
 * tool's output, ...); filters narrow by tool, date, session and the files the turn changed.
 * Best match first (FTS5's bm25) or newest first; with no words, only `--file`, the turns that
 * changed the file, newest first.
 */
import { inflateRawSync } from "node:zlib";
import type { SearchDb } from "./search-db.js";
import { matchExpression, matchRanges, parseQuery } from "./tokens.js";
import type { Place } from "./turn-docs.js";

/** Matches are looked for this far past the first one: more than a snippet shows. */
const SNIPPET_WINDOW = 400;

export interface SearchFilters {
  /** Paths (relative to the repository, as diffs name them) a matching turn must have changed. */
  files?: string[] | null;
  tool?: string | null;
  /** ISO time: turns ended at or after it. */
  since?: string | null;
  session?: string | null;
  /** claude's own sessions (their ids hold "-", nudge's never do) that may match; null: any indexed. */
  claudeSessions?: string[] | null;
  /** Newest turn first instead of best match first. */
  newest?: boolean;
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
  /** The whole piece's text, as written (NFKC). */
  text: string;
  /** Where the query matched in `text`: [start, end) in UTF-16 units. */
  matches: Array<[number, number]>;
}

export function search(db: SearchDb, query: string, f: SearchFilters): SearchHit[] {
  const parts = parseQuery(query);
  const where: string[] = [];
  const params: unknown[] = [];
  const filter = (clause: string, param: unknown) => {
    where.push(clause);
    params.push(param);
  };
  if (f.tool) filter("d.tool = ? COLLATE NOCASE", f.tool);
  if (f.since) filter("t.at >= ?", f.since);
  if (f.session) filter("d.session = ?", f.session);
  if (f.claudeSessions)
    filter(
      "(d.session NOT LIKE '%-%' OR d.session IN (SELECT value FROM json_each(?)))",
      JSON.stringify(f.claudeSessions),
    );
  if (f.files)
    filter(
      "EXISTS (SELECT 1 FROM files x WHERE x.session = d.session AND x.turn = d.turn AND x.path IN (SELECT value FROM json_each(?)))",
      JSON.stringify(f.files),
    );
  if (parts.length === 0) return fileTurns(db, where, params, f.limit, f.files ?? []);
  const sql = `SELECT d.session, d.turn, t.at, d.place, d.tool, t.prompt, d.zip
    FROM fts JOIN docs d ON d.id = fts.rowid JOIN turns t ON t.session = d.session AND t.turn = d.turn
    WHERE fts MATCH ? ${where.map((w) => `AND ${w}`).join(" ")}
    ORDER BY ${f.newest ? "t.at DESC, d.turn DESC, bm25(fts)" : "bm25(fts), t.at DESC"} LIMIT ?`;
  const rows = db.prepare(sql).all(matchExpression(parts), ...params, f.limit) as Array<
    Omit<SearchHit, "text" | "matches"> & { zip: Buffer }
  >;
  return rows.map(({ zip, ...row }) => {
    const text = inflateRawSync(zip).toString("utf8");
    // SQLite said the piece matches; where, for the snippet, is found here with the same cuts.
    return { ...row, text, matches: merge(matchRanges(text, parts, SNIPPET_WINDOW)) };
  });
}

/** `--file` alone: the turns that changed the file(s), each with the file names as its text. */
function fileTurns(db: SearchDb, where: string[], params: unknown[], limit: number, files: string[]): SearchHit[] {
  const sql = `SELECT d.session, d.turn, t.at, d.place, d.tool, t.prompt, d.zip
    FROM docs d JOIN turns t ON t.session = d.session AND t.turn = d.turn
    WHERE d.place = 'file' ${where.map((w) => `AND ${w}`).join(" ")}
    ORDER BY t.at DESC, d.turn DESC LIMIT ?`;
  const rows = db.prepare(sql).all(...params, limit) as Array<Omit<SearchHit, "matches" | "text"> & { zip: Buffer }>;
  const wanted = new Set(files);
  return rows.map(({ zip, ...r }) => {
    const text = inflateRawSync(zip).toString("utf8");
    // The text is one path a line: the lines that are the file(s) asked for are the matches.
    const matches: Array<[number, number]> = [];
    let at = 0;
    for (const line of text.split("\n")) {
      if (wanted.has(line)) matches.push([at, at + line.length]);
      at += line.length + 1;
    }
    return { ...r, text, matches };
  });
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
