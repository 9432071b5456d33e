/**
 * Claude's markdown rendered as it streams in, never re-printing what is on screen: a line is
 * rendered once it is complete (a heading, a list item, a quote, a line of a code block), and
 * only the line still being typed is held. A paragraph's line is shown as it is typed too, word by
 * word, up to the first word that holds markdown (`*`, `` ` ``, `[`, …); from there it waits for
 * its end. Tables wait for their last row, to fit their columns to the width.
 *
 * How a line looks depends on the line alone (and the code block it is in), never on where the
 * stream was cut: an answer streamed in 5-byte pieces ends on the same screen as the whole answer.
 * Lines are parsed one at a time, except that a paragraph's line leaving an emphasis (or a code
 * span) open waits for the next lines of its paragraph, up to MAX_CARRY_LINES, and is parsed with
 * them: `**bold` on one line and `still bold**` on the next render bold. Prose is wrapped at word
 * boundaries as it is written (word-wrap.ts); code blocks and tables are not.
 */
import { visible } from "../../base/inert-text.js";
import { highlightLines, languageOf } from "./highlight-ansi.js";
import { hasOpenEmphasis, renderInline, sgr } from "./inline.js";
import { renderTable } from "./table.js";
import { WordWrap } from "./word-wrap.js";
import { textWidth } from "../../base/text-width.js";

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

/** A paragraph's lines held for an emphasis left open, at most (then shown as they are, markers and all). */
const MAX_OPEN_EMPHASIS_LINES = 4;

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
  /** A paragraph's markdown left with an emphasis open, and the lines after it so far, waiting to be parsed with what follows. */
  private open: { text: string; lines: number } | null = null;
  private readonly wrap: WordWrap;

  constructor(private readonly o: MarkdownStreamOptions) {
    this.wrap = new WordWrap(o.write, o.columns);
  }

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
    this.flushOpen();
    this.fence = null;
    this.wrap.end();
  }

  /** Show a paragraph's plain words as they come, whole words only (the next one may turn out to hold markdown). */
  private typing(): void {
    if (this.fence || this.table || this.open || !this.line || MAY_BE_BLOCK.test(this.line)) return;
    const k = plainEnd(this.line);
    const upTo = k < this.line.length ? k : this.line.search(/\s\S*$/) + 1;
    if (upTo > this.shown) {
      this.wrap.prose(visible(this.line.slice(this.shown, upTo)));
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
    if (this.open) {
      if (continuesParagraph(line)) {
        const text = `${this.open.text}\n${line}`;
        if (newline && this.open.lines < MAX_OPEN_EMPHASIS_LINES && hasOpenEmphasis(text)) {
          this.open = { text, lines: this.open.lines + 1 };
          return;
        }
        this.open = null;
        return this.wrap.prose(renderInline(text) + nl);
      }
      this.flushOpen();
    }
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
    const k = plainEnd(line);
    if (newline && k < line.length && isParagraph(line) && hasOpenEmphasis(line.slice(k))) {
      // Its plain words now; the rest once the paragraph's next lines say whether the emphasis closes.
      this.wrap.prose(visible(line.slice(shown, k)));
      this.open = { text: line.slice(k), lines: 1 };
      return;
    }
    this.wrap.prose(renderLine(line, shown, this.o.columns()) + nl, hangOf(line));
  }

  /** The held lines with their emphasis still open: shown as they are (the line end after them was held too). */
  private flushOpen(): void {
    if (!this.open) return;
    const { text } = this.open;
    this.open = null;
    this.wrap.prose(`${renderInline(text)}\n`);
  }

  private codeLine(line: string, nl: string): void {
    const fence = this.fence!;
    const closing = line.trim();
    if (closing.startsWith(fence.marker) && /^(`+|~+)$/.test(closing) && closing[0] === fence.marker[0]) {
      this.fence = null;
      return;
    }
    fence.code.push(line);
    this.wrap.raw(highlightLast(fence) + nl);
  }

  private flushTable(newline: boolean): void {
    const rows = this.table;
    this.table = null;
    if (!rows) return;
    const table = renderTable(rows, this.o.columns());
    if (!table)
      return rows.forEach((row, i) =>
        this.wrap.prose(renderLine(row, 0, this.o.columns()) + (newline || i < rows.length - 1 ? "\n" : "")),
      );
    this.wrap.raw(table + (newline ? "\n" : ""));
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
function renderLine(line: string, shown: number, columns: number): string {
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
    const body = task
      ? `${task[1] === " " ? "☐" : "☑"} ${paragraph(text.slice(task[0].length), 0)}`
      : paragraph(text, 0);
    return `${indent.replace(/\t/g, "  ")}${sgr("dim", bullet)} ${body}`;
  }
  const indent = /^[ \t]*/.exec(line)![0];
  return indent + paragraph(line.slice(indent.length), 0);
}

/** What starts each row a long line wraps onto: a list item's text column, a quote's bar, the line's indent. */
function hangOf(line: string): string {
  if (HEADING.test(line) || RULE.test(line)) return "";
  const quote = QUOTE.exec(line);
  if (quote) return `${sgr("dim", "│")} ${hangOf(quote[1]!)}`;
  const item = LIST.exec(line);
  if (item) {
    const [, indent, marker, , text] = item as unknown as [string, string, string, string, string];
    const task = /^\[([ xX])\][ \t]+/.test(text) ? 2 : 0;
    const bullet = /\d/.test(marker) ? textWidth(marker) : 1;
    return " ".repeat(textWidth(indent.replace(/\t/g, "  ")) + bullet + 1 + task);
  }
  return /^[ \t]*/.exec(line)![0];
}

/** A plain paragraph's line (no block marker, no indent): the lines an open emphasis may be carried over. */
function isParagraph(line: string): boolean {
  return /^\S/.test(line) && continuesParagraph(line);
}

/** A line that goes on the paragraph before it (not blank, not the start of another block). */
function continuesParagraph(line: string): boolean {
  return line.trim() !== "" && ![FENCE, TABLE_ROW, HEADING, RULE, QUOTE, LIST].some((re) => re.test(line));
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
