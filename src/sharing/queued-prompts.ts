/**
 * claude logs every prompt it is handed as a `queue-operation` line (`"operation":"enqueue"`,
 * with the prompt's text in `content`) when it arrives: a prompt piped or typed ahead can arrive
 * while the turn before it still runs, and then its words sit before that turn's end, inside an
 * `--upto` cut. These lines are claude's bookkeeping: a resume reads the user and assistant lines
 * and ignores them (claude 2.1.329 files `queue-operation` under "ignored" when it loads a
 * transcript), and the prompt itself is in its own user line. So every export, whole or cut,
 * empties their text, the same way: a cut stays a byte prefix of the whole export (which an
 * import recognises a conversation by), and the lines stay, so line positions hold.
 *
 * Only that string changes; every other byte of the line stays as claude wrote it.
 */
import { stringTokens } from "../secrets/json-strings.js";
import { rewriteLines } from "./rewrite-lines.js";

const MARK = Buffer.from('"queue-operation"');

/** Copy `src` to `dest` (which must not exist) with each queued prompt's text emptied. Returns how many were. */
export async function emptyQueuedPrompts(src: string, dest: string): Promise<number> {
  const change = (line: Buffer) => (line.includes(MARK) ? emptiedLine(line) : null);
  return (await rewriteLines(src, dest, { marks: [MARK], change })).changed;
}

/** The line with its `content` string emptied, when it is a queue-operation that has text; else null. */
function emptiedLine(line: Buffer): Buffer | null {
  const text = line.toString("utf8");
  let parsed: { type?: unknown; content?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return null;
  }
  if (parsed.type !== "queue-operation" || typeof parsed.content !== "string" || parsed.content === "") return null;
  // The top-level "content" key: the first string token "content" that is a key, its value the next token.
  const tokens = stringTokens(text);
  for (let i = 0; i + 1 < tokens.length; i++) {
    const key = tokens[i]!;
    if (key.isValue || text.slice(key.start, key.end) !== '"content"') continue;
    const value = tokens[i + 1]!;
    if (!value.isValue || !/^\s*:\s*$/.test(text.slice(key.end, value.start))) continue;
    return Buffer.from(text.slice(0, value.start) + '""' + text.slice(value.end));
  }
  return null;
}
