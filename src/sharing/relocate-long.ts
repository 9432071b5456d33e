/**
 * A transcript line too long to hold (a 50 MB Write, whose `file_path` names the old place), moved
 * as relocateLine moves a line, to the same bytes, from its file a window at a time: its string
 * tokens are found in its bytes (huge-line.ts), it is JSON when its skeleton (long tokens emptied)
 * parses and each long token decodes, and a long token that holds a moved path is decoded, moved
 * (a PathMover) and re-encoded piece by piece. Every byte outside a changed string is copied.
 */
import { isUtf8 } from "node:buffer";
import { piecesOf, type FileLine } from "../claude/long-line.js";
import { boundary, byteTokens } from "../claude/json-bytes.js";
import { textOf } from "../secrets/huge-line.js";
import { decodeToken } from "../secrets/json-strings.js";
import { jsonEscaped, PathMover, relocateText, type PathMove } from "./relocate-text.js";

export interface LongLineSizes {
  /** A line longer than this (bytes) is moved here; shorter ones whole (relocateLine). */
  line: number;
  /** A string token longer than this is decoded and moved a window at a time. */
  token: number;
  /** Raw bytes read, decoded or copied at once: at most FileLine's window (1 MB). */
  window: number;
}

const SIZES: LongLineSizes = { line: 4 << 20, token: 64 << 10, window: 1 << 20 };

interface Token {
  start: number;
  end: number;
}

/** The moved line's bytes as pieces to write in turn, or null when nothing in it moves (or it is not JSON). */
export function relocatedLongLine(raw: FileLine, moves: PathMove[], sizes = SIZES): Iterable<Buffer> | null {
  const tokens = byteTokens(raw);
  if (!isJson(raw, tokens, sizes)) return null;
  const escaped = moves.map((m) => jsonEscaped(m.from));
  const marks = escaped.map((e) => Buffer.from(e));
  // Each changed token: its new bytes, or null for a long one, moved again as it is written.
  const edits: Array<Token & { bytes: Buffer | null }> = [];
  for (const t of tokens) {
    if (t.end - t.start <= sizes.token) {
      const text = raw.toString("utf8", t.start, t.end);
      if (!escaped.some((e) => text.includes(e))) continue;
      const value = decodeToken(text);
      const moved = relocateText(value, moves);
      if (moved !== value) edits.push({ ...t, bytes: Buffer.from(JSON.stringify(moved)) });
    } else if (marks.some((m) => holds(raw, t, m, sizes)) && movesIn(raw, t, moves, sizes)) {
      edits.push({ ...t, bytes: null });
    }
  }
  if (edits.length === 0) return null;
  return (function* () {
    let at = 0;
    for (const e of edits) {
      yield* copied(raw, at, e.start, sizes);
      if (e.bytes) yield e.bytes;
      else yield* movedToken(raw, e, moves, sizes);
      at = e.end;
    }
    yield* copied(raw, at, raw.length, sizes);
  })();
}

/** As isJsonLine: JSON whitespace, then an object or array that parses (long tokens checked a window at a time). */
function isJson(raw: FileLine, tokens: Token[], sizes: LongLineSizes): boolean {
  let first = 0;
  while (first < raw.length && isSpace(raw.at(first)!)) first++;
  if (raw.at(first) !== 0x7b && raw.at(first) !== 0x5b) return false;
  const parts: string[] = [];
  let at = 0;
  for (const t of tokens) {
    if (t.end - t.start <= sizes.token) continue;
    parts.push(raw.toString("utf8", at, t.start), '""');
    at = t.end;
  }
  parts.push(raw.toString("utf8", at));
  try {
    JSON.parse(parts.join(""));
    // Each piece is parsed as it is decoded: one that is not a JSON string's inside throws.
    for (const t of tokens) if (t.end - t.start > sizes.token) for (const piece of decoded(raw, t, sizes)) void piece;
    return true;
  } catch {
    return false;
  }
}

/** Whether the token's raw bytes hold `mark` (as relocateLine tests a string before decoding it). */
function holds(raw: FileLine, t: Token, mark: Buffer, sizes: LongLineSizes): boolean {
  // Windows overlap by the mark's length, so one that straddles two is whole in one.
  for (let at = t.start; at < t.end; at += Math.max(1, sizes.window - mark.length)) {
    const end = Math.min(t.end, at + sizes.window);
    for (const piece of piecesOf(raw, at, end)) if (piece.includes(mark)) return true;
    if (end === t.end) break;
  }
  return false;
}

/** Whether moving the token's value changes it. */
function movesIn(raw: FileLine, t: Token, moves: PathMove[], sizes: LongLineSizes): boolean {
  const mover = new PathMover(moves);
  for (const piece of decoded(raw, t, sizes)) {
    mover.push(piece);
    if (mover.changed) return true;
  }
  mover.end();
  return mover.changed;
}

/** The token moved and encoded, as JSON.stringify of its whole moved value would write it. */
function* movedToken(raw: FileLine, t: Token, moves: PathMove[], sizes: LongLineSizes): Generator<Buffer> {
  const mover = new PathMover(moves);
  const encoded = (text: string) => Buffer.from(JSON.stringify(text).slice(1, -1));
  yield Buffer.from('"');
  for (const piece of decoded(raw, t, sizes)) yield encoded(mover.push(piece));
  yield encoded(mover.end());
  yield Buffer.from('"');
}

/** The token's value, decoded a window at a time (cut between characters, never inside an escape). */
function* decoded(raw: FileLine, t: Token, sizes: LongLineSizes): Generator<string> {
  const from = t.start + 1;
  for (let at = from; at < t.end - 1;) {
    const end = Math.min(t.end - 1, boundary(raw, at + sizes.window, from, true));
    yield textOf(raw, at, end, true);
    at = end;
  }
}

/**
 * raw[from, to) as it is, a window at a time, cut between characters. Bytes that are not UTF-8
 * come out as relocateLine writes them, each bad sequence as U+FFFD (it decodes the line).
 */
function* copied(raw: FileLine, from: number, to: number, sizes: LongLineSizes): Generator<Buffer> {
  for (let at = from; at < to;) {
    let end = Math.min(to, at + sizes.window);
    while (end < to && end > at + 1 && (raw.at(end)! & 0xc0) === 0x80) end--;
    for (const piece of piecesOf(raw, at, end)) yield isUtf8(piece) ? piece : Buffer.from(piece.toString("utf8"));
    at = end;
  }
}

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
