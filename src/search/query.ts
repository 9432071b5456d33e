/**
 * A search over the index: the query's parts must all match one piece of a turn (its prompt, a
 * tool's output, ...); filters narrow by tool, date, session and the files the turn changed.
 * A piece's rowid grows with its turn's time (search-db.ts), so FTS5 walks the matches newest
 * first and stops at the limit: a word in every session costs what a rare one does. Newest first
 * in both orders: FTS5's bm25 has nothing to rank pieces by in this table (contentless, without
 * positions, it sees no token in any column: every piece scores 0), so "best match" was the
 * newest all along, at the cost of bm25 reading every piece of each token to weigh it (most of a
 * CJK word's search). With no words, only `--file`, the turns that changed the file, newest first.
 */
import { UserError } from "../base/errors.js";
import type { SearchDb } from "./search-db.js";
import { storedText, type Stored } from "./stored-text.js";
import { cjkSpelling, cutText, matchEnd, matchExpression, needsCheck, parseQuery, rangesIn } from "./tokens.js";
import type { Place } from "./turn-docs.js";

/** Matches are looked for this far past the first one: more than a snippet shows. */
const SNIPPET_WINDOW = 400;

/** A long text's start decoded first (bytes of its JSON). */
const FIRST_BYTES = 24 * 1024;

/**
 * How much of a text must follow a match in the part decoded (bytes past a CJK word's spelling, characters past a match):
 * for masking, more than any secret spans (a PEM key: ~3 KB), so it sees whole ones; for a snippet alone, more than
 * it shows (the matches looked for SNIPPET_WINDOW on, 200 characters around the first). ~36K characters a CJK hit decoded, or ~16K.
 */
const AFTER_MATCH = {
  masked: { bytes: 24 * 1024, chars: 8 * 1024 },
  snippet: { bytes: 4 * 1024, chars: 1024 },
} as const;

/**
 * For a snippet alone, a CJK word's text is decoded from this many bytes before its spelling: more
 * than the snippet shows before its first match and the markdown looked at around it (260
 * characters, 6 bytes each at most, as an escape). Masking decodes from the text's start.
 */
const SNIPPET_BEFORE_BYTES = 2 * 1024;

/** A phrase's (a CJK word's) order is checked among at most this many of the newest pieces holding all its words. */
const CANDIDATES = 1000;

export interface SearchFilters {
  /** Paths (relative to the repository, as diffs name them) a matching turn must have changed. */
  files?: string[] | null;
  tool?: string | null;
  /** ISO time: turns ended at or after it. */
  since?: string | null;
  session?: string | null;
  /** claude's own sessions (their ids hold "-", nudge's never do) that may match; null: any indexed. */
  claudeSessions?: string[] | null;
  /** Newest turn first instead of best match first (the same order: nothing ranks the pieces, see above). */
  newest?: boolean;
  limit: number;
  /** The hits are shown as snippets, never masked (the terminal): a hit's text may then end ~1K characters past its matches, and a CJK word's begin ~2 KB before it. */
  snippetOnly?: boolean;
}

export interface SearchHit {
  session: string;
  turn: number;
  /** When the turn ended (ISO). */
  at: string;
  place: Place;
  tool: string | null;
  prompt: string | null;
  /** The piece's text, as written (NFKC): whole, or with `snippetOnly` maybe only a part: its start, or around a CJK word, past the matches. */
  text: string;
  /** Where the query matched in `text`: [start, end) in UTF-16 units. */
  matches: Array<[number, number]>;
}

/** Where a recorded session's conversation.jsonl is, for the pieces the index reads from there. */
export type ConversationFile = (session: string) => string;

export function search(db: SearchDb, query: string, f: SearchFilters, conversation?: ConversationFile): SearchHit[] {
  const parts = parseQuery(query);
  const where: string[] = [];
  const params: unknown[] = [];
  const filter = (clause: string, param: unknown) => {
    where.push(`AND ${clause}`);
    params.push(param);
  };
  if (f.tool) filter("d.tool = ? COLLATE NOCASE", f.tool);
  if (f.since) filter("t.at >= ?", f.since);
  if (f.session) filter("d.session = ?", f.session);
  // Left out when the index holds none of claude's sessions (ids with "-"): a join per candidate saved.
  if (f.claudeSessions && db.prepare("SELECT 1 FROM sessions WHERE id LIKE '%-%' LIMIT 1").get() !== undefined)
    filter(
      "(d.session NOT LIKE '%-%' OR d.session IN (SELECT value FROM json_each(?)))",
      JSON.stringify(f.claudeSessions),
    );
  if (parts.length === 0) return fileTurns(db, where, params, f.limit, f.files ?? [], conversation);
  if (f.files)
    filter(
      "EXISTS (SELECT 1 FROM files x WHERE x.session = d.session AND x.turn = d.turn AND x.path IN (SELECT value FROM json_each(?)))",
      JSON.stringify(f.files),
    );
  // The newest matches, walked in rowid order; the docs and turns joined only when a filter needs them.
  const turns = f.since ? "JOIN turns t ON t.session = d.session AND t.turn = d.turn" : "";
  const newest =
    where.length === 0
      ? `SELECT fts.rowid AS id FROM fts WHERE fts MATCH ? ORDER BY fts.rowid DESC LIMIT ?`
      : `SELECT d.id FROM fts JOIN docs d ON d.id = fts.rowid ${turns}
          WHERE fts MATCH ? ${where.join(" ")} ORDER BY fts.rowid DESC LIMIT ?`;
  const checked = parts.filter(needsCheck);
  // Candidates: exactly the hits when no part needs its order checked; else enough to check. Read one by one, up to the hits found.
  const wanted = checked.length === 0 && f.newest ? f.limit : Math.max(CANDIDATES, f.limit);
  const candidates = candidatesOf(db, newest, [matchExpression(parts), ...params, wanted]);
  const load =
    db.prepare(`SELECT d.session, d.turn, t.at, d.place, d.tool, t.prompt, z.zip, z.at AS refAt, z.len AS refLength
    FROM docs d JOIN texts z ON z.id = d.id JOIN turns t ON t.session = d.session AND t.turn = d.turn WHERE d.id = ?`);
  // A CJK word is spelled in the recording as in the query (JSON keeps it as UTF-8): where it is tells how much to decode.
  const spelled = checked.length === 1 ? cjkSpelling(checked[0]!) : null;
  const after = f.snippetOnly ? AFTER_MATCH.snippet : AFTER_MATCH.masked;
  const hits: SearchHit[] = [];
  for (const id of candidates) {
    if (hits.length >= f.limit) break;
    const row = load.get(id) as (Omit<SearchHit, "text" | "matches"> & Stored) | undefined;
    if (!row) continue;
    const { zip, refAt, refLength, ...hit } = row;
    const file = conversation ? conversation(hit.session) : null;
    const found = matched(
      storedText(
        file,
        { zip, refAt, refLength },
        {
          firstBytes: FIRST_BYTES,
          spelled,
          afterSpelled: after.bytes,
          beforeSpelled: f.snippetOnly ? SNIPPET_BEFORE_BYTES : undefined,
        },
      ),
      parts,
      checked,
      after.chars,
    );
    const { text, matches } =
      found ?? matched(storedText(file, { zip, refAt, refLength }), parts, checked, after.chars) ?? {};
    if (text !== undefined && matches) hits.push({ ...hit, text, matches });
  }
  return hits;
}

/** `--file` alone: the turns that changed the file(s), each with the file names as its text; found from the files, not by reading every turn. */
function fileTurns(
  db: SearchDb,
  where: string[],
  params: unknown[],
  limit: number,
  files: string[],
  conversation?: ConversationFile,
): SearchHit[] {
  const sql = `SELECT d.session, d.turn, t.at, d.place, d.tool, t.prompt, z.zip, z.at AS refAt, z.len AS refLength
    FROM (SELECT DISTINCT session, turn FROM files WHERE path IN (SELECT value FROM json_each(?))) x
      JOIN docs d ON d.session = x.session AND d.turn = x.turn AND d.place = 'file'
      JOIN turns t ON t.session = d.session AND t.turn = d.turn JOIN texts z ON z.id = d.id
    WHERE 1 ${where.join(" ")} ORDER BY d.id DESC LIMIT ?`;
  const rows = db.prepare(sql).all(JSON.stringify(files), ...params, limit) as Array<
    Omit<SearchHit, "matches" | "text"> & Stored
  >;
  const wanted = new Set(files);
  return rows.map(({ zip, refAt, refLength, ...r }) => {
    const { text } = storedText(conversation ? conversation(r.session) : null, { zip, refAt, refLength });
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

/** The candidates' ids, newest first, as they are read; a word SQLite cuts in two where this did not (a newer Unicode letter) is the user's to rephrase. */
function* candidatesOf(db: SearchDb, sql: string, params: unknown[]): Generator<number> {
  let rows: IterableIterator<number>;
  let first: IteratorResult<number>;
  try {
    rows = db
      .prepare(sql)
      .pluck()
      .iterate(...params) as IterableIterator<number>;
    first = rows.next(); // SQLite's refusal comes with the first row
  } catch (error) {
    if (!/phrase queries are not supported/.test(String((error as Error).message))) throw error;
    throw new UserError(
      "a word of the query is cut in two by the index",
      "search for its parts as separate words, or a prefix of it with *",
    );
  }
  if (first.done) return;
  yield first.value;
  yield* rows; // a loop that stops early ends the statement too
}

/**
 * The text and where the parts match in it, if they do: SQLite found every token; a phrase's (or a
 * CJK word's) order is checked here, in the text, and the snippet's matches found with the same
 * cuts. Of a text's start: null unless every match lies well inside it (else the whole is read).
 */
function matched(
  s: { text: string; whole: boolean },
  parts: ReturnType<typeof parseQuery>,
  checked: ReturnType<typeof parseQuery>,
  afterMatch: number,
): { text: string; matches: Array<[number, number]> | null } | null {
  const cut = cutText(s.text);
  const inside = (end: number) => s.whole || (end >= 0 && end + afterMatch <= s.text.length);
  for (const p of checked) {
    const end = matchEnd(cut, p);
    if (end < 0 && s.whole) return { text: s.text, matches: null };
    if (!inside(end)) return null;
  }
  const matches = merge(rangesIn(cut, parts, SNIPPET_WINDOW));
  if (!inside(matches.at(-1)?.[1] ?? -1)) return null;
  return { text: s.text, matches };
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
