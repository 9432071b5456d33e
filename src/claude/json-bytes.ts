/**
 * JSON read from a line's bytes, not its parse: where its string tokens lie and where a string can
 * be cut between two characters (a `"` or a `\` never occurs inside a UTF-8 sequence). For lines
 * too long to make one string (a 50 MB tool input), read a window at a time through LineBytes.
 */
import type { LineBytes } from "./long-line.js";

export interface ByteToken {
  start: number;
  end: number;
  isValue: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The string tokens of a JSON line, in raw byte offsets (quotes included); as stringTokens, on bytes. */
export function byteTokens(raw: LineBytes): ByteToken[] {
  return [...eachByteToken(raw)];
}

/** The same, one at a time. */
function* eachByteToken(raw: LineBytes): Generator<ByteToken> {
  let at = raw.indexOf(QUOTE);
  let backslash = raw.indexOf(BACKSLASH);
  while (at !== -1) {
    let close = at + 1;
    let quote = raw.indexOf(QUOTE, close);
    if (backslash !== -1 && backslash < close) backslash = raw.indexOf(BACKSLASH, close);
    for (;;) {
      if (quote === -1) return; // unterminated: not JSON, and the skeleton will not parse
      if (backslash !== -1 && backslash < quote) {
        close = backslash + 2;
        if (quote < close) quote = raw.indexOf(QUOTE, close);
        backslash = raw.indexOf(BACKSLASH, close);
      } else {
        close = quote;
        break;
      }
    }
    let next = close + 1;
    while (next < raw.length && isSpace(raw.at(next)!)) next++;
    yield { start: at, end: close + 1, isValue: raw.at(next) !== 0x3a };
    at = raw.indexOf(QUOTE, close + 1);
  }
}

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** The first place at or after `at` between two characters (not inside a UTF-8 sequence or an escape). */
export function boundary(raw: LineBytes, at: number, from: number, escaped: boolean): number {
  let p = Math.max(at, from);
  while (p < raw.length && ((raw.at(p)! & 0xc0) === 0x80 || (escaped && insideEscape(raw, p, from)))) p++;
  return p;
}

/** Whether p falls inside an escape (`\n`, `\uXXXX`) of the string starting at `from`. */
function insideEscape(raw: LineBytes, p: number, from: number): boolean {
  for (let back = 1; back <= 5 && p - back >= from; back++) {
    if (raw.at(p - back) !== BACKSLASH) continue;
    let run = 1;
    while (p - back - run >= from && raw.at(p - back - run) === BACKSLASH) run++;
    if (run % 2 === 0) continue; // an escaped backslash, not an escape's start
    return back === 1 || (raw.at(p - back + 1) === 0x75 && back <= 5);
  }
  return false;
}

/**
 * The line as JSON text with each string over `keep` bytes cut to its first `keep` and a note of
 * what was left out, for a reader that must know what a line is (a prompt, a tool's result) but
 * cannot hold it; null when the line is not JSON, or when what is kept would pass `most` bytes.
 */
export function cutLongStrings(raw: LineBytes, keep: number, most: number): string | null {
  return withLongStrings(raw, eachByteToken(raw), keep + 2, most, (t) => {
    const cut = boundary(raw, t.start + 1 + keep, t.start + 1, true);
    return { to: cut, text: ` … (${(t.end - 1 - cut).toLocaleString("en")} more bytes, too long to read)"` };
  });
}

/**
 * The line as JSON text with each string token over `longer` bytes (quotes included) rewritten:
 * the line's bytes up to `to`, then `text` in place of the rest of the token. Null when the line is
 * not a JSON object or array, when that does not parse, or when what is kept would pass `most` bytes.
 */
export function withLongStrings(
  raw: LineBytes,
  tokens: Iterable<ByteToken>,
  longer: number,
  most: number,
  rewrite: (t: ByteToken) => { to: number; text: string },
): string | null {
  let first = 0;
  while (isSpace(raw.at(first) ?? 0)) first++;
  if (raw.at(first) !== 0x7b && raw.at(first) !== 0x5b) return null;
  const parts: string[] = [];
  let at = 0;
  let kept = 0;
  for (const t of tokens) {
    if (t.end - t.start <= longer) continue;
    const { to, text } = rewrite(t);
    if ((kept += to - at) > most) return null;
    parts.push(raw.toString("utf8", at, to), text);
    at = t.end;
  }
  if (kept + raw.length - at > most) return null;
  parts.push(raw.toString("utf8", at));
  const text = parts.join("");
  try {
    JSON.parse(text);
  } catch {
    return null;
  }
  return text;
}
