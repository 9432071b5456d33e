/**
 * Where paths move inside a text (see relocate.ts): whole path prefixes only, decided from the
 * text around each match (up to 7 characters before it, 2 after). A text too long to hold (a
 * string of a 50 MB tool input) is moved in pieces by a PathMover, with the same result.
 */

export interface PathMove {
  /** An absolute folder as recorded, without a trailing slash. */
  from: string;
  to: string;
}

/** Characters that continue a path segment: a match followed by one is a longer name, not this folder. */
const NAME_CHAR = /[A-Za-z0-9_~+-]/;
/** How far before a match its start is decided: `file://`. */
const BEHIND = "file://".length;

/** `text` with every move applied at path boundaries; the longest `from` wins where two start at the same place. */
export function relocateText(text: string, moves: PathMove[]): string {
  const found = pathMatches(text, moves, 0, text.length);
  if (found.length === 0) return text;
  let out = "";
  let done = 0;
  for (const { at, move } of found) {
    if (at < done) continue; // inside a longer match already rewritten
    out += text.slice(done, at) + move.to;
    done = at + move.from.length;
  }
  return out + text.slice(done);
}

/**
 * relocateText over a text given in pieces: push each, then end; the moved text comes out in
 * pieces, held back where a path may run into the next one. A piece never ends inside a
 * surrogate pair (JSON.stringify of each half alone would write two lone escapes).
 */
export class PathMover {
  changed = false;
  /** The text already passed, its last characters: what decides whether a match starts a path. */
  private behind = "";
  private pending = "";
  private readonly longest: number;

  constructor(private readonly moves: PathMove[]) {
    this.longest = Math.max(0, ...moves.map((m) => m.from.length));
  }

  push(piece: string): string {
    this.pending += piece;
    return this.flush(false);
  }

  end(): string {
    return this.flush(true);
  }

  private flush(final: boolean): string {
    const text = this.behind + this.pending;
    const base = this.behind.length;
    // A match at `limit` or later may need characters still to come (endsPath reads two past it).
    const limit = final ? text.length : text.length - this.longest - 1;
    let out = "";
    let done = base;
    for (const { at, move } of pathMatches(text, this.moves, base, limit)) {
      if (at < done) continue;
      out += text.slice(done, at) + move.to;
      done = at + move.from.length;
      this.changed = true;
    }
    let cut = Math.max(done, limit);
    if (cut > done && cut < text.length && isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
    out += text.slice(done, cut);
    this.behind = text.slice(Math.max(0, cut - BEHIND), cut);
    this.pending = text.slice(cut);
    return out;
  }
}

/** How a path appears inside a JSON string (a quick test before decoding one). */
export function jsonEscaped(p: string): string {
  return JSON.stringify(p).slice(1, -1);
}

/** The moves' matches at path boundaries that start in [from, before), in order, the longest first at one place. */
function pathMatches(
  text: string,
  moves: PathMove[],
  from: number,
  before: number,
): Array<{ at: number; move: PathMove }> {
  const found: Array<{ at: number; move: PathMove }> = [];
  for (const move of moves) {
    for (let at = text.indexOf(move.from, from); at !== -1 && at < before; at = text.indexOf(move.from, at + 1)) {
      if (startsPath(text, at) && endsPath(text, at + move.from.length)) found.push({ at, move });
    }
  }
  return found.sort((a, b) => a.at - b.at || b.move.from.length - a.move.from.length);
}

function startsPath(text: string, at: number): boolean {
  if (at === 0) return true;
  const before = text[at - 1]!;
  // `file:///home/ana/app` is the path /home/ana/app; `/srv/home/ana/app` is another.
  if (before === "/") return text.slice(Math.max(0, at - BEHIND), at) === "file://";
  return !NAME_CHAR.test(before) && before !== ".";
}

function endsPath(text: string, at: number): boolean {
  if (at === text.length) return true;
  const next = text[at]!;
  if (next === "/") return true;
  // A final "." ends a sentence ("… in /home/ana/app."); followed by a name character it is `app.bak`.
  if (next === ".") return at + 1 === text.length || (!NAME_CHAR.test(text[at + 1]!) && text[at + 1] !== ".");
  return !NAME_CHAR.test(next);
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
