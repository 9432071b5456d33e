/**
 * One of nudge's own lines (a tool's header or result, a notice, a question) wrapped at word
 * boundaries to the terminal's width, as claude's prose is (word-wrap.ts), instead of the terminal
 * cutting it mid-word. `hang` starts each row after the first, so a wrapped line stays under its marker.
 */
import { WordWrap } from "./markdown/word-wrap.js";
import { textWidth } from "../base/text-width.js";

const SGR = /\u001b\[[0-9;]*m/g;

/** The rows `text` (one line, styling allowed) takes at `columns`, each row after the first starting with `hang`. */
export function wrapRows(text: string, columns: number, hang = ""): string[] {
  let out = "";
  const wrap = new WordWrap(
    (t) => void (out += t),
    () => columns,
  );
  wrap.prose(text, hang);
  wrap.end();
  // The wrap drops a line's trailing spaces; a label keeps the one before what is typed after it.
  const trailing = /[ \t]+$/.exec(text.replace(SGR, ""))?.[0] ?? "";
  return `${out}${trailing}`.split("\n");
}

/**
 * A whole line (no newline in it) as the rows it takes, joined by newlines; unchanged when it fits.
 * Each row ends with its styling switched off and the next takes it up again after its indent, so
 * no terminal carries a colour over a line end (nor into the block drawn under it).
 */
export function wrapLine(line: string, columns: number): string {
  if (textWidth(line) <= columns) return line;
  const hang = hangOf(line);
  const rows = wrapRows(line, columns, hang);
  let active = "";
  return rows
    .map((row, i) => {
      const body = i > 0 && row.startsWith(hang) ? row.slice(hang.length) : row;
      const shown = i > 0 ? `${row.slice(0, row.length - body.length)}${active}${body}` : row;
      for (const m of row.matchAll(SGR)) active = m[0] === "\u001b[0m" || m[0] === "\u001b[m" ? "" : active + m[0];
      return i < rows.length - 1 && active ? `${shown}\u001b[0m` : shown;
    })
    .join("\n");
}

/** The indent that lines a wrapped row up under the text after a line's marker (`  ⎿ `, `│ `, `⏺ `). */
function hangOf(line: string): string {
  const plain = line.replace(SGR, "");
  const lead = /^( *(?:[⎿│•⏺]\s)?)/.exec(plain)![1]!;
  return " ".repeat(lead.length);
}
