/**
 * How much of a long text a first view carries. A tool's output or a line claude wrote can be
 * megabytes: the page shows the start, and `full` (one request away, or the static export) the rest.
 */
import { CUT_MARK } from "../store/line-reducer.js";
import type { ClippedText } from "./view-types.js";

/** A first view shows at most this many characters of one text… */
export const CLIP_CHARS = 4096;
/** …and at most this many lines of it. */
const CLIP_LINES = 200;

/** The text, cut at CLIP_CHARS characters or CLIP_LINES lines unless `full`; `length` is the whole one's. */
function clip(text: string, full: boolean): ClippedText {
  let end = Math.min(text.length, CLIP_CHARS);
  for (let n = 0, at = -1; n < CLIP_LINES; n++) {
    at = text.indexOf("\n", at + 1);
    if (at === -1 || at >= end) break;
    if (n === CLIP_LINES - 1) end = at;
  }
  // Only a trailing newline past the cut: nothing worth a "show all".
  if (full || end >= text.trimEnd().length) return { text, length: text.length };
  // Never cut a surrogate pair in two: half a character would show as a replacement mark.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: text.slice(0, end), length: text.length };
}

/**
 * A text from a line that was read reduced (`whole` says where the line lies): when a string in
 * it was cut, the text is only a start, and the view says where the whole can be downloaded.
 */
export function clipRead(
  text: string,
  full: boolean,
  whole: { byte: number; length: number } | undefined,
): ClippedText {
  if (!whole || !text.includes(CUT_MARK)) return clip(text, full);
  return { ...clip(text.replaceAll(CUT_MARK, "…"), full), whole: { byte: whole.byte, bytes: whole.length } };
}
