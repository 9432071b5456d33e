/**
 * One of nudge's own lines (a tool's result, a question's answer line) wrapped at word boundaries
 * to the terminal's width, as claude's prose is (word-wrap.ts), instead of the terminal cutting it
 * mid-word. `hang` starts each row after the first, so a wrapped result stays under its marker.
 */
import { WordWrap } from "./markdown/word-wrap.js";

/** The rows `text` (one line, styling allowed) takes at `columns`, each row after the first starting with `hang`. */
export function wrapRows(text: string, columns: number, hang = ""): string[] {
  let out = "";
  const wrap = new WordWrap((t) => void (out += t), () => columns);
  wrap.prose(text, hang);
  wrap.end();
  // The wrap drops a line's trailing spaces; a label keeps the one before what is typed after it.
  const trailing = /[ \t]+$/.exec(text.replace(/\u001b\[[0-9;]*m/g, ""))?.[0] ?? "";
  return `${out}${trailing}`.split("\n");
}

/** The indent that lines a wrapped row up under the text after a line's marker (`  ⎿ `, `│ `). */
export function hangOf(line: string): string {
  const plain = line.replace(/\u001b\[[0-9;]*m/g, "");
  const lead = /^( *(?:[⎿│•]\s)?)/.exec(plain)![1]!;
  return " ".repeat(lead.length);
}
