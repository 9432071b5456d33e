/**
 * Claude's markdown rendered as it streams in, never re-printing what is on screen: a line is
 * rendered once it is complete (a heading, a list item, a quote, a line of a code block), and
 * only the line still being typed is held. A paragraph's line is shown as it is typed too, word by
 * word, up to the first word that holds markdown (`*`, `` ` ``, `[`, …); from there it waits for
 * its end. Tables wait for their last row, to fit their columns to the width.
 *
 * How a line looks depends on the line alone (and the code block it is in), never on where the
 * stream was cut: an answer streamed in 5-byte pieces ends on the same screen as the whole answer.
 * Lines are parsed one at a time, so emphasis that spans two lines shows its markers.
 */
import { visible } from "../../inert-text.js";
import { highlightLines, languageOf } from "./highlight-ansi.js";
import { renderInline, sgr } from "./inline.js";
import { renderTable } from "./table.js";

export interface MarkdownStreamOptions {
  /** Rendered text, in order; what is written is never taken back. */
  write(text: string): void;
  /** The terminal's width now (tables and rules are fitted to it). */
  columns(): number;
}

/**
 * A fenced code block being typed: its lines so far, and where the construct still open at the
 * end of the last line (a comment or string over several lines) began. Each new line is
 * highlighted together with the lines from there, so such a construct stays coloured on every
 * line, while a line after a closed one costs only itself.
 */
interface Fence {
  marker: string;
  language: string | null;
  code: string[];
  /** Index in `code` of the first line the next one is highlighted with. */
  from: number;
}

/** A construct open for more lines than this is given up on: the next line starts afresh (bounds the cost per line). */
const MAX_CARRY_LINES = 200;

const FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const LIST = /^([ \t]*)([-*+]|\d{1,9}[.)])([ \t]+)(.*)$/;
const QUOTE = /^ {0,3}>[ \t]?(.*)$/;
const TABLE_ROW = /^ {0,3}\|/;
/** Characters that may start inline markdown: a paragraph's plain words end before the word holding one. */
const INLINE = /[*_`[\]!<>\\~&]/;
/** A line starting with one of these may be a block (list, heading, quote, code, table…): it waits for its end. */
const MAY_BE_BLOCK = /^[\s#>*+\-_=|`~\d]/;

export class MarkdownStream {
  /** The line being typed, and how much of it is on screen already (plain words of a paragraph). */
  private line = "";
  private shown = 0;
  private fence: Fence | null = null;
  private table: string[] | null = null;

  constructor(private readonly o: MarkdownStreamOptions) {}

  /** More of the text, as it comes. */
  push(text: string): void {
    let rest = text;
    for (let nl = rest.indexOf("\n"); nl !== -1; nl = rest.indexOf("\n")) {
      this.line += rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      this.complete(true);
    }
    this.line += rest;
    this.typing();
  }

  /** The text is whole: the last line (without a newline after it) and a table still waiting. */
  end(): void {
    if (this.line || this.shown) this.complete(false);
    this.flushTable(false);
    this.fence = null;
  }

  /** Show a paragraph's plain words as they come, whole words only (the next one may turn out to hold markdown). */
  private typing(): void {
    if (this.fence || this.table || !this.line || MAY_BE_BLOCK.test(this.line)) return;
    const k = plainEnd(this.line);
    const upTo = k < this.line.length ? k : this.line.search(/\s\S*$/) + 1;
    if (upTo > this.shown) {
      this.o.write(visible(this.line.slice(this.shown, upTo)));
      this.shown = upTo;
    }
  }

  private complete(newline: boolean): void {
    const line = this.line;
    const shown = this.shown;
    this.line = "";
    this.shown = 0;
    const nl = newline ? "\n" : "";
    if (this.fence) return this.codeLine(line, nl);
    if (this.table) {
      if (TABLE_ROW.test(line)) {
        this.table.push(line);
        if (!newline) this.flushTable(false);
        return;
      }
      this.flushTable(true);
    }
    const fence = FENCE.exec(line);
    if (fence) {
      this.fence = { marker: fence[1]!, language: languageOf(fence[2] ?? ""), code: [], from: 0 };
      return;
    }
    if (TABLE_ROW.test(line)) {
      this.table = [line];
      if (!newline) this.flushTable(false);
      return;
    }
    this.o.write(renderLine(line, shown, this.o.columns()) + nl);
  }

  private codeLine(line: string, nl: string): void {
    const fence = this.fence!;
    const closing = line.trim();
    if (closing.startsWith(fence.marker) && /^(`+|~+)$/.test(closing) && closing[0] === fence.marker[0]) {
      this.fence = null;
      return;
    }
    fence.code.push(line);
    this.o.write(highlightLast(fence) + nl);
  }

  private flushTable(newline: boolean): void {
    const rows = this.table;
    this.table = null;
    if (!rows) return;
    const table = renderTable(rows, this.o.columns());
    const text = table ?? rows.map((row) => renderLine(row, 0, this.o.columns())).join("\n");
    this.o.write(text + (newline ? "\n" : ""));
  }
}

/** The last line of a code block, highlighted with the lines of a construct still open before it. */
function highlightLast(fence: Fence): string {
  const last = fence.code.at(-1)!;
  if (!fence.language) return sgr("code", visible(last));
  if (fence.code.length - fence.from > MAX_CARRY_LINES) fence.from = fence.code.length - 1;
  const highlighted = highlightLines(fence.code.slice(fence.from).join("\n"), fence.language);
  if (!highlighted) return visible(last);
  // Nothing left open at the end of this line: the next starts afresh.
  if (!highlighted.open) fence.from = fence.code.length;
  return highlighted.lines.at(-1)!;
}

/** One complete line outside code blocks and tables, of which the first `shown` characters are on screen already (plain words). */
export function renderLine(line: string, shown: number, columns: number): string {
  if (shown > 0) return paragraph(line, shown);
  if (!line.trim()) return "";
  if (RULE.test(line)) return sgr("dim", "─".repeat(Math.max(3, Math.min(columns - 1, 80))));
  const heading = HEADING.exec(line);
  if (heading) {
    const text = heading[2] ?? "";
    return heading[1]!.length === 1 ? sgr("underline", renderInline(text, ["bold"])) : renderInline(text, ["bold"]);
  }
  const quote = QUOTE.exec(line);
  if (quote) return `${sgr("dim", "│")} ${renderLine(quote[1]!, 0, columns - 2)}`;
  const item = LIST.exec(line);
  if (item) {
    const [, indent, marker, , text] = item as unknown as [string, string, string, string, string];
    const task = /^\[([ xX])\][ \t]+/.exec(text);
    const bullet = /\d/.test(marker) ? marker : "•";
    const body = task ? `${task[1] === " " ? "☐" : "☑"} ${paragraph(text.slice(task[0].length), 0)}` : paragraph(text, 0);
    return `${indent.replace(/\t/g, "  ")}${sgr("dim", bullet)} ${body}`;
  }
  const indent = /^[ \t]*/.exec(line)![0];
  return indent + paragraph(line.slice(indent.length), 0);
}

/**
 * A paragraph's line: its plain words as they are (the first `shown` characters of them already
 * on screen), then the rest from the word holding the first markdown character, parsed. The
 * same split whatever was shown, so a line streamed in pieces renders as it does whole.
 */
function paragraph(text: string, shown: number): string {
  const k = plainEnd(text);
  return visible(text.slice(shown, k)) + renderInline(text.slice(k));
}

/** Where a paragraph's plain words end: the start of the word holding the first markdown character (its length if none). */
function plainEnd(text: string): number {
  const at = text.search(INLINE);
  if (at === -1) return text.length;
  return text.slice(0, at).search(/\S*$/);
}
