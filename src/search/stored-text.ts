/**
 * A piece's text as the index keeps it: deflated, or where a recorded session's conversation.jsonl
 * has it as a JSON string (its bytes there, quotes included). A long one is first decoded in part,
 * from its start: a match well inside that part is what the whole text would show (its snippet,
 * and every secret around it whole), and decoding 45 KB of tool output twenty times was most of a
 * common word's search. For a snippet alone, a CJK word's part starts a little before where it
 * is spelled, not at the text's start: it sits ~20 KB into a tool's output, as often as not.
 */
import { closeSync, readSync } from "node:fs";
import { inflateRawSync } from "node:zlib";
import { openBundleFileSync } from "../store/bundle-links.js";

export interface Stored {
  zip: Buffer | null;
  refAt: number | null;
  refLength: number | null;
}

/** The text (NFKC, as indexed); `whole` false: only a part, its start or the part around a CJK word's spelling. */
export interface StoredText {
  text: string;
  whole: boolean;
}

/**
 * One read from the recording cannot fail the search: a file changed since (the next catch-up
 * indexes it again) shows the hit with no snippet.
 */
export function storedText(
  file: string | null,
  s: Stored,
  o: {
    firstBytes?: number;
    /** Bytes the match is spelled with, if known (a CJK word): the part decoded reaches past where they first are. */
    spelled?: Buffer | null;
    /** Bytes decoded past the spelling, when found (default `firstBytes`). */
    afterSpelled?: number;
    /** Bytes decoded before the spelling, when found (default: from the text's start). */
    beforeSpelled?: number;
  } = {},
): StoredText {
  if (s.zip) return { text: inflateRawSync(s.zip).toString("utf8"), whole: true };
  if (s.refAt === null || s.refLength === null || file === null) return { text: "", whole: true };
  let fd: number | null = null;
  try {
    fd = openBundleFileSync(file);
    // Read whole (reading is cheap; decoding 45 KB of JSON and normalizing it is not).
    const buffer = Buffer.alloc(s.refLength);
    const read = readSync(fd, buffer, 0, buffer.length, s.refAt);
    let first = o.firstBytes ?? Infinity;
    let from = 0;
    if (o.spelled && first !== Infinity) {
      const at = buffer.subarray(0, read).indexOf(o.spelled);
      if (at >= 0) first = at + o.spelled.length + (o.afterSpelled ?? first);
      if (at >= 0 && o.beforeSpelled !== undefined) from = Math.max(0, at - o.beforeSpelled);
    }
    const part = read > first + 1 || from > 1;
    const text = part
      ? jsonPart(buffer, from, Math.min(first, read - 1))
      : (JSON.parse(buffer.toString("utf8", 0, read)) as unknown);
    return typeof text === "string" ? { text: text.normalize("NFKC"), whole: !part } : { text: "", whole: true };
  } catch {
    return { text: "", whole: true };
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * The start of the JSON string in `buffer` (from its opening quote), cut at or before `length`
 * where neither an escape (`\n`, `\\`, `\u00e9`) nor a UTF-8 sequence is split; null if it is no string.
 */
export function jsonPrefix(buffer: Buffer, length: number): string | null {
  return jsonPart(buffer, 0, length);
}

/**
 * The part of the JSON string in `buffer` (its opening quote at 0) between about `from` and `to`:
 * begun at or after `from`, cut at or before `to`, where neither an escape nor a UTF-8 sequence is
 * split; null if it is no string.
 */
export function jsonPart(buffer: Buffer, from: number, to: number): string | null {
  if (buffer[0] !== 0x22) return null;
  const start = from <= 1 ? 1 : startOutsideEscape(buffer, from);
  let end = to;
  while (end > 1 && (buffer[end]! & 0xc0) === 0x80) end--;
  for (let i = end - 1; i >= Math.max(1, end - 6); i--) {
    if (buffer[i] !== 0x5c) continue;
    let start = i;
    while (start > 1 && buffer[start - 1] === 0x5c) start--;
    // Backslashes in pairs are escaped backslashes; an odd one out starts an escape, which must end inside.
    if ((i - start + 1) % 2 === 1 && i + (buffer[i + 1] === 0x75 ? 6 : 2) > end) end = i;
    break;
  }
  if (start >= end) return "";
  try {
    const text: unknown = JSON.parse('"' + buffer.toString("utf8", start, end) + '"');
    return typeof text === "string" ? text : null;
  } catch {
    return null;
  }
}

/** The first byte at or after `from` that begins a character of the string: not inside a UTF-8 sequence or an escape. */
function startOutsideEscape(buffer: Buffer, from: number): number {
  let at = from;
  while (at < buffer.length && (buffer[at]! & 0xc0) === 0x80) at++;
  for (let i = at - 1; i >= Math.max(1, at - 6); i--) {
    if (buffer[i] !== 0x5c) continue;
    let start = i;
    while (start > 1 && buffer[start - 1] === 0x5c) start--;
    // An odd one out starts an escape: begun at it, the part starts where that escape ends.
    if ((i - start + 1) % 2 === 1) at = Math.max(at, i + (buffer[i + 1] === 0x75 ? 6 : 2));
    break;
  }
  return at;
}
