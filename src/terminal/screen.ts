/**
 * Everything nudge writes to a terminal goes through here, so that the bottom of the screen can
 * hold a live block (the status line, the line typed ahead, the prompt being edited, a question's
 * answer) while claude's words scroll above it. Each write erases the block, writes, and draws it
 * again; a line claude has not finished yet (streamed text) is continued where it stopped.
 *
 * Two kinds of terminal: one that understands cursor movement (`ansi`), where the block may have
 * many rows, and a dumb one (TERM=dumb, an editor's shell buffer), where only carriage return and
 * backspace are trusted: there the block is its last line only, the lines above it having been
 * written once for good.
 */
import { inert } from "../base/inert-text.js";
import { expandTabsFrom, fitRow, fitWidth, stripAnsi, textWidth } from "../base/text-width.js";
import { wrapLine } from "./wrap-lines.js";

/** The part of a terminal's output stream the screen uses. */
export interface TerminalOutput {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
  isTTY?: boolean;
  on?(event: "resize" | "error", listener: (...args: unknown[]) => void): unknown;
}

/** Lines at the bottom of the screen; `cursor` (row in `lines`, display column) or the cursor hidden. */
export interface Block {
  lines: string[];
  cursor?: { row: number; col: number };
}

/** The slots the block is made of, top to bottom; a modal slot (a question being answered) hides the input slot and comes above the status. */
export type Slot = "status" | "input" | "modal";

const ESC = "\u001b[";

export class Screen {
  private readonly slots = new Map<Slot, Block>();
  /**
   * The block as drawn: the widths of its lines and where the cursor was among them, from which
   * erase() counts the row the cursor is on at the current width (a resize reflows the block before
   * nudge hears of it); null when nothing is drawn. (A dumb terminal's block is one row: no widths.)
   */
  private drawn: { widths: number[]; cursor?: Block["cursor"]; newlineBefore: boolean } | null = null;
  /** Output since the last newline (what a streamed line has so far), as the terminal shows it. */
  private tail = "";
  /** Dumb terminal: the block's lines above its last, already written for good, and the last line's width. */
  private dumb = { fixed: [] as string[], width: 0 };
  private cursorHidden = false;
  private dead = false;
  /** While another program has the terminal (a pager): what nudge would have written, in order. */
  private held: Array<{ text: string; to: TerminalOutput }> | null = null;

  constructor(
    private readonly output: TerminalOutput,
    readonly ansi: boolean,
  ) {
    output.on?.("resize", () => this.redraw());
  }

  get columns(): number {
    // 0 from a terminal that never said its size (a pty nobody set up): assume the classic 80.
    const columns = this.output.columns;
    return columns && columns > 0 ? Math.max(10, columns) : 80;
  }

  /** The terminal's height (24 when it never said). */
  get rows(): number {
    const rows = this.output.rows;
    return rows && rows > 0 ? rows : 24;
  }

  /**
   * Lend the terminal to another program (a pager over a question): the block is erased and not
   * drawn (the status line's ticks, a resize change only what will be drawn), and what nudge
   * writes until the returned function is called (claude's words, a notice) waits, then goes out
   * in order, and the block is drawn again as it is then.
   */
  hold(): () => void {
    if (this.held) return () => undefined;
    this.erase();
    this.held = [];
    return () => {
      const held = this.held ?? [];
      this.held = null;
      for (const { text, to } of held) this.send(text, to);
      this.draw();
    };
  }

  /**
   * Claude's words, written above the block as they are: markdown wraps its prose itself, and a
   * code block's or a table's lines keep their columns. `to` is another stream on the same terminal (stderr).
   */
  write(raw: string, to: TerminalOutput = this.output): void {
    this.put(raw, to, false);
  }

  /**
   * nudge's own lines (a notice, a tool's line, a question's head): each whole line wider than the
   * terminal is wrapped at word boundaries, where the terminal would cut it mid-word.
   */
  writeLines(raw: string, to: TerminalOutput = this.output): void {
    this.put(raw, to, true);
  }

  private put(raw: string, to: TerminalOutput, wrap: boolean): void {
    // The output layer's guard: whatever a caller forgot to make visible cannot drive the terminal.
    const text = inert(raw);
    if (!text) return;
    // stdout redirected to a file while the block is on the terminal: nothing to make room for.
    if (to !== this.output && !to.isTTY) return this.send(text, to);
    this.erase();
    // Tabs become the spaces the terminal would move over: the width of the line is then known,
    // and the cursor put back after the block is erased lands where the terminal left it.
    const expanded = expandTabsFrom(text, textWidth(this.tail) % this.columns);
    const shown = wrap ? this.wrapped(expanded) : expanded;
    this.send(shown, to);
    this.track(shown);
    this.dumb.fixed = []; // no longer right above where the block goes
    this.draw();
  }

  /** Every whole line wider than the terminal, wrapped at word boundaries; a line already begun (after streamed words) is left as it is. */
  private wrapped(text: string): string {
    const parts = text.split("\n");
    return parts
      .map((part, i) => {
        const whole = i < parts.length - 1 && (i > 0 || this.tail === "") && !part.includes("\r");
        return whole ? wrapLine(part, this.columns) : part;
      })
      .join("\n");
  }

  /** Make sure what comes next starts on a line of its own (a question after half a line of streamed text). */
  endLine(): void {
    if (this.tail) this.write("\n");
  }

  set(slot: Slot, block: Block | null): void {
    if (block) this.slots.set(slot, block);
    else this.slots.delete(slot);
    this.redraw();
  }

  /** Leave a slot's lines on screen for good (a sent prompt, an answer) and take it out of the block. */
  commit(slot: Slot): void {
    const block = this.slots.get(slot);
    if (!block) return;
    this.slots.delete(slot);
    this.erase();
    // A dumb terminal already shows the lines above the last (and the rows of a wide last line
    // before the cursor's): write only what it does not.
    let lines = block.lines;
    if (!this.ansi) {
      const rows = this.dumbRows(block);
      const k = this.dumb.fixed.length;
      // A wide line cut just before the cursor's row: that row is empty, and the cursor already on it.
      const endsOnRow = rows.last === "" && rows.fixed.length >= block.lines.length;
      if (k <= rows.fixed.length && this.dumb.fixed.every((l, i) => l === rows.fixed[i]))
        lines = [...rows.fixed.slice(k), ...(endsOnRow ? [] : [rows.last])];
    }
    const text = inert(lines.length ? `${lines.join("\n")}\n` : "");
    this.send(text);
    this.track(text);
    this.dumb.fixed = [];
    this.draw();
  }

  /** The terminal is gone: write nothing more (a write would fail with EIO). */
  hangUp(): void {
    this.dead = true;
  }

  /** Leave the screen clean: block erased, cursor shown. */
  clear(): void {
    this.slots.clear();
    this.erase();
    this.showCursor(true);
  }

  private redraw(): void {
    this.erase();
    this.draw();
  }

  private block(): Block | null {
    // A question hides the line typed ahead, not the status line, which says it waits for the
    // answer; it goes under the question, so the question's lines and its answer stay together.
    const order = this.slots.has("modal") ? (["modal", "status"] as const) : (["status", "input"] as const);
    const parts = order.map((s) => this.slots.get(s)).filter((b): b is Block => !!b && b.lines.length > 0);
    if (parts.length === 0) return null;
    const lines: string[] = [];
    let cursor: Block["cursor"];
    for (const part of parts) {
      if (part.cursor) cursor = { row: lines.length + part.cursor.row, col: part.cursor.col };
      lines.push(...part.lines);
    }
    return { lines: lines.map(inert), cursor };
  }

  private draw(): void {
    const block = this.block();
    if (!block || this.dead || this.held) return;
    if (!this.ansi) return this.drawDumb(block);
    const columns = this.columns;
    // The block starts on a row of its own; a half-written line is continued after it is erased.
    const newlineBefore = this.tail !== "";
    let out = newlineBefore ? "\r\n" : "\r";
    const widths = block.lines.map(textWidth);
    block.lines.forEach((line, i) => {
      out += `${line}${ESC}K`;
      // A line that fills its last row exactly leaves the cursor waiting at the margin; step onto
      // the next row so every line takes floor(width / columns) + 1 rows, whatever the terminal.
      if (widths[i]! > 0 && widths[i]! % columns === 0) out += ` \r${ESC}K`;
      if (i < block.lines.length - 1) out += "\r\n";
    });
    if (block.cursor) {
      const below = cursorRowAt(widths, undefined, columns) - cursorRowAt(widths, block.cursor, columns);
      if (below > 0) out += `${ESC}${below}A`;
      out += `\r${block.cursor.col % columns > 0 ? `${ESC}${block.cursor.col % columns}C` : ""}`;
    }
    this.send(out);
    this.showCursor(!!block.cursor);
    this.drawn = { widths, cursor: block.cursor, newlineBefore };
  }

  private erase(): void {
    const drawn = this.drawn;
    this.drawn = null;
    if (!drawn || this.dead) return;
    if (!this.ansi) return this.send(`\r${" ".repeat(this.dumb.width)}\r`);
    const cursorRow = cursorRowAt(drawn.widths, drawn.cursor, this.columns);
    let out = `\r${cursorRow > 0 ? `${ESC}${cursorRow}A` : ""}${ESC}J`;
    if (drawn.newlineBefore) {
      // Back to where the unfinished line stopped. At an exact multiple of the width the next
      // character would have wrapped onto the row the block took: stay there, at the start of a
      // row, as if the line had been ended (it has, on screen).
      const col = textWidth(this.tail) % this.columns;
      if (col > 0) out += `${ESC}1A${ESC}${col}C`;
      else this.tail = "";
    }
    this.send(out);
  }

  /**
   * Dumb terminal: lines above the last are written once, for good; the last is redrawn with \r
   * and spaces. Nothing is drawn while claude's line is unfinished: there is no way back up to it.
   */
  private drawDumb(block: Block): void {
    if (this.tail) return;
    const { fixed, last, col } = this.dumbRows(block);
    const keep = this.dumb.fixed.length <= fixed.length && this.dumb.fixed.every((l, i) => l === fixed[i]);
    let out = keep ? "" : "\r\n";
    for (const line of fixed.slice(keep ? this.dumb.fixed.length : 0)) out += `\r${line}\r\n`;
    // What follows the cursor's row is cut to the row (\r cannot reach back over a wrap).
    const shown = fitWidth(last, this.columns - 1);
    const width = textWidth(shown);
    out += `\r${shown}${"\b".repeat(Math.max(0, width - col))}`;
    this.send(out);
    this.dumb = { fixed, width };
    this.drawn = { widths: [], newlineBefore: false };
  }

  /**
   * Dumb terminal: the block as rows written for good and the one row redrawn. A last line wider
   * than the terminal would wrap, and \r only goes back to the start of its last row, so every
   * redraw printed the whole line again: the rows of it before the cursor's are written once, like
   * the lines above it, and only the cursor's row is redrawn.
   */
  private dumbRows(block: Block): { fixed: string[]; last: string; col: number } {
    const last = block.lines.at(-1) ?? "";
    let col = block.cursor?.row === block.lines.length - 1 ? block.cursor.col : textWidth(last);
    const fixed = block.lines.slice(0, -1);
    const rowWidth = this.columns - 1; // the last column stays free: no terminal waits at the margin
    let rest = last;
    for (;;) {
      const row = fitRow(rest, rowWidth);
      const width = textWidth(row);
      if (row === rest || col < width) break;
      fixed.push(row);
      rest = rest.slice(row.length);
      col -= width;
    }
    return { fixed, last: rest, col };
  }

  private showCursor(show: boolean): void {
    if (!this.ansi || this.cursorHidden === !show) return;
    this.cursorHidden = !show;
    this.send(show ? `${ESC}?25h` : `${ESC}?25l`);
  }

  private track(text: string): void {
    const plain = stripAnsi(text);
    const nl = plain.lastIndexOf("\n");
    this.tail = nl === -1 ? this.tail + plain : plain.slice(nl + 1);
    const cr = this.tail.lastIndexOf("\r");
    if (cr !== -1) this.tail = this.tail.slice(cr + 1);
  }

  private send(text: string, to: TerminalOutput = this.output): void {
    // After a hang-up only the terminal is gone: stderr or stdout redirected to a file still takes
    // what follows (the end of the turn, the session's last line).
    const terminal = to === this.output || to.isTTY === true;
    if (!text || (this.dead && terminal)) return;
    if (this.held && terminal) return void this.held.push({ text, to });
    try {
      to.write(text);
    } catch {
      // A terminal that went away mid-write: the hang-up handler ends the session.
      if (terminal) this.dead = true;
    }
  }
}

/**
 * The row (from the block's top) the cursor is on when the block's lines take `columns` each: the
 * row draw() left it on, at the width it was drawn; after a resize, the row the terminal's reflow
 * moved it to, so that erasing starts at the block's top and leaves no piece of it behind.
 */
function cursorRowAt(widths: number[], cursor: Block["cursor"], columns: number): number {
  const rows = (w: number) => Math.floor(w / columns) + 1;
  if (!cursor) return widths.reduce((n, w) => n + rows(w), 0) - 1;
  return widths.slice(0, cursor.row).reduce((n, w) => n + rows(w), 0) + Math.floor(cursor.col / columns);
}
