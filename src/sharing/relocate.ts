/**
 * Move a claude transcript to another folder: every absolute path under the recorded work tree
 * (the `cwd` of each record, `file_path` in tool inputs, `filePath` in tool results, paths in
 * tool output text) and under claude's old project folder (`persistedOutputPath`, the memory
 * folder named in the system prompt) is rewritten to the new place, so `claude --resume` in the
 * new clone, with another config dir, finds what the conversation refers to.
 *
 * Only whole path prefixes change: `/home/ana/app` matches in `/home/ana/app/src/x.ts` and at the
 * end of a sentence, never inside `/home/ana/app2`, `/home/ana/app.bak` or `/srv/home/ana/app`.
 * Rewriting happens inside decoded JSON string values (keys too), and only a string that changes
 * is re-encoded: every other byte of the line stays as claude wrote it.
 */
import { decodeToken, isJsonLine, stringTokens } from "../secrets/json-strings.js";
import { relocatedLongLine, type LongLineSizes } from "./relocate-long.js";
import { jsonEscaped, relocateText, type PathMove } from "./relocate-text.js";
import { rewriteLines } from "./rewrite-lines.js";

export { relocateText, type PathMove };

/** The moves for a transcript: its work tree, and claude's project folder (tool outputs, memory) when known. */
export function transcriptMoves(input: {
  oldRoot: string;
  newRoot: string;
  oldProjectDir?: string | null;
  newProjectDir?: string | null;
}): PathMove[] {
  const moves = [{ from: input.oldRoot, to: input.newRoot }];
  if (input.oldProjectDir && input.newProjectDir) moves.push({ from: input.oldProjectDir, to: input.newProjectDir });
  return moves.filter((m) => m.from !== m.to).map((m) => ({ from: trimSlash(m.from), to: trimSlash(m.to) }));
}

/** One NDJSON line moved; the same string when nothing in it changes. A line that is not JSON is left alone. */
export function relocateLine(line: string, moves: PathMove[]): string {
  const escaped = moves.map((m) => jsonEscaped(m.from));
  if (!escaped.some((e) => line.includes(e)) || !isJsonLine(line)) return line;
  let out = "";
  let done = 0;
  for (const token of stringTokens(line)) {
    const raw = line.slice(token.start, token.end);
    // The line's own test, string by string: only a string that holds a path is decoded.
    if (!escaped.some((e) => raw.includes(e))) continue;
    const value = decodeToken(raw);
    const moved = relocateText(value, moves);
    if (moved === value) continue;
    out += line.slice(done, token.start) + JSON.stringify(moved);
    done = token.end;
  }
  return done === 0 ? line : out + line.slice(done);
}

/**
 * Copy a transcript (or a subagent's) from `src` to `dest` (which must not exist), moved. Streams:
 * a line over 4 MB (`sizes` for tests) is moved a window at a time, to the same bytes.
 */
export async function relocateTranscript(
  src: string,
  dest: string,
  moves: PathMove[],
  sizes?: LongLineSizes,
): Promise<{ lines: number; changed: number }> {
  const change = (line: Buffer) => {
    const cr = line[line.length - 1] === 0x0d;
    const text = line.toString("utf8", 0, cr ? line.length - 1 : line.length);
    const moved = relocateLine(text, moves);
    return moved === text ? null : Buffer.from(moved + (cr ? "\r" : ""));
  };
  // A line with no moved path in it (as it appears in JSON) is not read as text: relocateLine would keep it.
  return rewriteLines(src, dest, {
    marks: moves.map((m) => Buffer.from(jsonEscaped(m.from))),
    change,
    changeLong: (line) => relocatedLongLine(line, moves, sizes),
    longLine: sizes?.line,
  });
}

function trimSlash(p: string): string {
  return p.length > 1 ? p.replace(/\/+$/, "") : p;
}
