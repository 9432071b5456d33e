/**
 * Secrets in one huge NDJSON line (a 50 MB Write input, as claude's stream and transcript hold it
 * several times), found and masked from the line's bytes, a window at a time. Made one string,
 * parsed and decoded, such a line was five copies of itself at once in the export's memory.
 *
 * The line's string tokens are found in its bytes (a `"` or a `\` never occurs inside a UTF-8
 * sequence, so the search of json-strings.ts works on bytes). The line is JSON when its skeleton
 * (long tokens emptied) parses and each long token decodes. A long value is decoded and scanned in
 * windows of its raw bytes that overlap (detectSecrets' windows, the same guarantee: any stretch up
 * to half the overlap lies whole in one window); the short values are scanned together. A secret
 * is masked by putting its placeholder in place of its bytes inside the string: every other byte
 * stays, and the line stays valid JSON. A line that is not JSON is scanned and masked as text, in
 * the same windows. The line itself is read from its file (a FileLine) a window at a time: never
 * whole in memory, in the scan or in the masked copy.
 */
import { itemAt } from "./joined-texts.js";
import { boundary, byteTokens, withLongStrings, type ByteToken } from "../claude/json-bytes.js";
import { piecesOf, type FileLine, type LineBytes } from "../claude/long-line.js";

/** A line longer than this (bytes) is scanned from its bytes (see above); shorter ones as one string. */
/** Loaded when a scan runs: the byte readers here serve an import's relocation too, which scans nothing. */
const detectSecrets = async (text: string) => (await import("./secret-detect.js")).detectSecrets(text);

export const HUGE_LINE = 4 << 20;
/** A string token longer than this is emptied in the skeleton and scanned in windows. */
const LONG_TOKEN = 64 << 10;
/** Raw bytes per window and between two windows' starts' overlap (as detectSecrets' windows). */
const WINDOW = 512 << 10;
const OVERLAP = 64 << 10;
/**
 * Raw bytes decoded at once: a window's text is made of such pieces, each string small enough for
 * V8's young generation (freed at once), where a whole window's copies were large objects that
 * stayed until a full collection, tens of MB of them over a 50 MB line.
 */
const PIECE = 32 << 10;

const BACKSLASH = 0x5c;

/** A secret in the line: raw byte offsets, end exclusive. */
export interface ByteSpan {
  kind: string;
  start: number;
  end: number;
}

/** The line's secrets as raw byte spans, and whether it was scanned as JSON. */
export async function hugeLineSpans(raw: LineBytes): Promise<{ json: boolean; spans: ByteSpan[] }> {
  const tokens = jsonTokens(raw);
  if (!tokens) return { json: false, spans: merged(await windowSpans(raw, 0, raw.length, false)) };
  const spans: ByteSpan[] = [];
  const short: Array<{ token: ByteToken; from: number; value: string }> = [];
  let joined = 0;
  for (const token of tokens) {
    if (!token.isValue) continue;
    if (token.end - token.start > LONG_TOKEN) {
      spans.push(...(await windowSpans(raw, token.start + 1, token.end - 1, true)));
      continue;
    }
    const value = JSON.parse(raw.toString("utf8", token.start, token.end)) as string;
    short.push({ token, from: joined, value });
    joined += value.length + 1;
  }
  for (const span of await detectSecrets(short.map((s) => s.value).join("\n"))) {
    const s = short[itemAt(short, span.start)]!;
    const end = Math.min(span.end, s.from + s.value.length);
    if (span.start >= end) continue;
    spans.push({
      kind: span.kind,
      start: byteIndex(raw, s.token.start + 1, span.start - s.from, true),
      end: byteIndex(raw, s.token.start + 1, end - s.from, true),
    });
  }
  return { json: true, spans: merged(spans) };
}

/** The line's bytes with each span replaced by its placeholder, as pieces to write (a huge line's read a window at a time). */
export function* maskedParts(
  raw: Buffer | FileLine,
  spans: ByteSpan[],
  placeholder: (kind: string) => string,
): Generator<Buffer> {
  let at = 0;
  for (const s of spans) {
    yield* piecesOf(raw, at, s.start);
    yield Buffer.from(placeholder(s.kind));
    at = s.end;
  }
  yield* piecesOf(raw, at, raw.length);
}

/** Where each byte offset (ascending) sits in the line's text (UTF-16 units, as findings count), in one pass. */
export function textIndexes(raw: LineBytes, bytes: number[]): number[] {
  const out: number[] = [];
  let units = 0;
  let i = 0;
  for (const byte of bytes) {
    for (; i < byte; i++) {
      const b = raw.at(i)!;
      if ((b & 0xc0) !== 0x80) units += b >= 0xf0 ? 2 : 1;
    }
    out.push(units);
  }
  return out;
}

/** The string tokens when the line is JSON: its skeleton parses (each long token decodes when it is scanned). */
function jsonTokens(raw: LineBytes): ByteToken[] | null {
  const tokens = byteTokens(raw);
  const shape = skeletonOf(raw, tokens);
  if (shape === null) return null;
  for (const t of tokens) if (t.end - t.start > LONG_TOKEN && !decodes(raw, t.start + 1, t.end - 1)) return null;
  return tokens;
}

/** The line with its long string tokens emptied, when that parses as JSON (an object or array); else null. */
export function skeletonOf(raw: LineBytes, tokens = byteTokens(raw)): string | null {
  return withLongStrings(raw, tokens, LONG_TOKEN, Infinity, (t) => ({ to: t.start, text: '""' }));
}

/** Whether raw[from, to) is the inside of a valid JSON string, checked a piece at a time. */
function decodes(raw: LineBytes, from: number, to: number): boolean {
  for (let at = from; at < to;) {
    const end = Math.min(to, boundary(raw, at + PIECE, from, true));
    try {
      JSON.parse(`"${raw.toString("utf8", at, end)}"`);
    } catch {
      return false;
    }
    at = end;
  }
  return true;
}

/** Secrets in raw[from, to): decoded as a JSON string's inside (`escaped`) or as UTF-8 text, a window at a time. */
async function windowSpans(raw: LineBytes, from: number, to: number, escaped: boolean): Promise<ByteSpan[]> {
  const spans: ByteSpan[] = [];
  for (let start = from; ;) {
    const end = Math.min(to, boundary(raw, start + WINDOW, from, escaped));
    for (const span of await detectSecrets(textOf(raw, start, end, escaped)))
      spans.push({
        kind: span.kind,
        start: byteIndex(raw, start, span.start, escaped),
        end: byteIndex(raw, start, span.end, escaped),
      });
    if (end >= to) return spans;
    start = boundary(raw, end - OVERLAP / 2, from, escaped);
  }
}

/** The text of raw[from, to), decoded as a JSON string's inside (`escaped`) or as UTF-8, a piece at a time. */
export function textOf(raw: LineBytes, from: number, to: number, escaped: boolean): string {
  const parts: string[] = [];
  for (let at = from; at < to;) {
    const end = Math.min(to, boundary(raw, at + PIECE, from, escaped));
    const slice = raw.toString("utf8", at, end);
    parts.push(escaped ? (JSON.parse(`"${slice}"`) as string) : slice);
    at = end;
  }
  return parts.join("");
}

/** The byte offset of the `units`-th UTF-16 unit of the text decoded from raw at `from`. */
function byteIndex(raw: LineBytes, from: number, units: number, escaped: boolean): number {
  let at = from;
  for (let n = 0; n < units && at < raw.length;) {
    const b = raw.at(at)!;
    if (escaped && b === BACKSLASH) {
      at += raw.at(at + 1) === 0x75 ? 6 : 2;
      n++;
    } else {
      const length = b < 0x80 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
      at += length;
      n += length === 4 ? 2 : 1;
    }
  }
  return at;
}

/** Overlapping spans (the same secret found by two windows) as one, their union. */
function merged(spans: ByteSpan[]): ByteSpan[] {
  const out: ByteSpan[] = [];
  for (const s of [...spans].sort((a, b) => a.start - b.start || b.end - a.end)) {
    const last = out.at(-1);
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}
