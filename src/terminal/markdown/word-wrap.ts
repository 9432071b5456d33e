/**
 * Rendered prose wrapped at word boundaries as it is written, never taken back: a word that would
 * cross the last column starts the next row instead (after the row's hanging indent: a list
 * item's text column, a quote's bar). Widths are the terminal's (text-width.ts: CJK and emoji two
 * columns, styling none). A word wider than a whole row is cut where the row ends. CJK text,
 * which has no spaces, may break between any two of its characters.
 *
 * Whitespace and styling after the last word wait for the next word (a wrap drops the spaces, and
 * a row never ends in them), and so does a word until what follows it shows it is whole: where the
 * text was cut into pieces never changes where a row breaks.
 */
import { graphemes, graphemeWidth, textWidth } from "../../base/text-width.js";

/** Closing marks that never start a row (Japanese and Chinese punctuation, closing brackets). */
const NO_BREAK_BEFORE = /^[、。，．・：；？！）」』】〕〉》”’ー々〜…]$/u;

/** An SGR sequence (the only control the renderer writes), a line end, a run of spaces, or a run of anything else. */
const TOKEN = /(\u001b\[[0-9;]*m)|(\n)|([ \t]+)|([^\s\u001b]+|\u001b)/g;

export class WordWrap {
  /** Columns taken on the current row. */
  private col = 0;
  /** A word is on this row already (so the next may wrap; the first never does). */
  private rowHasWord = false;
  /** Spaces and styling after the last word, not written yet. */
  private pending = "";
  private pendingWidth = 0;
  /** The word being read, with any styling inside it. */
  private word = "";
  private wordWidth = 0;
  private hang = "";

  constructor(
    private readonly write: (text: string) => void,
    /** The terminal's width now; rows are filled to one column less (no terminal then waits at the margin). */
    private readonly columns: () => number,
  ) {}

  /** Prose (a paragraph's words, a list item, a heading): wrapped; `hang` starts each row after the first. */
  prose(text: string, hang = ""): void {
    this.hang = hang;
    let out = "";
    for (const m of text.matchAll(TOKEN)) {
      const [token, style, newline, space] = m;
      if (style !== undefined) {
        if (this.word) this.word += style;
        else this.pending += style;
      } else if (newline !== undefined) {
        out += this.placeWord();
        // The line ends: its trailing spaces go, its styling stays.
        out += `${styleOnly(this.pending)}\n`;
        this.clearPending();
        this.col = 0;
        this.rowHasWord = false;
      } else if (space !== undefined) {
        out += this.placeWord();
        this.pending += space;
        this.pendingWidth += textWidth(space.replace(/\t/g, " "));
      } else {
        out += this.addWord(token);
      }
    }
    if (out) this.write(out);
  }

  /**
   * A run of anything but spaces joins the word being read; a wide character (CJK, emoji) is a
   * word of its own, as text without spaces between its characters may break between any two
   * (a closing mark such as `。` stays with the character before it).
   */
  private addWord(token: string): string {
    let out = "";
    for (const g of graphemes(token)) {
      const width = graphemeWidth(g);
      if (width === 2 && !NO_BREAK_BEFORE.test(g)) out += this.placeWord();
      this.word += g;
      this.wordWidth += width;
    }
    return out;
  }

  /** Text that is not wrapped (a code block's line, a table): written as it is, after what waits. */
  raw(text: string): void {
    const out = this.placeWord() + this.pending + text;
    this.clearPending();
    const nl = text.lastIndexOf("\n");
    this.col = nl === -1 ? this.col + textWidth(text) : textWidth(text.slice(nl + 1));
    this.rowHasWord = this.col > 0;
    if (out) this.write(out);
  }

  /** The text is whole: the last word, and the styling after it. */
  end(): void {
    const out = this.placeWord() + styleOnly(this.pending);
    this.clearPending();
    if (out) this.write(out);
  }

  private placeWord(): string {
    if (!this.word) return "";
    const width = Math.max(2, this.columns() - 1);
    let out = "";
    if (this.rowHasWord && this.col + this.pendingWidth + this.wordWidth > width) {
      // The next word's styling after the indent, which stays plain.
      out += `\n${this.hang}${styleOnly(this.pending)}`;
      this.col = textWidth(this.hang);
    } else {
      out += this.pending;
      this.col += this.pendingWidth;
    }
    this.clearPending();
    if (this.col + this.wordWidth <= width) {
      out += this.word;
      this.col += this.wordWidth;
    } else {
      out += this.cut(this.word, width);
    }
    this.rowHasWord = true;
    this.word = "";
    this.wordWidth = 0;
    return out;
  }

  /** A word wider than the row: cut between graphemes where each row ends. */
  private cut(word: string, width: number): string {
    let out = "";
    for (const m of word.matchAll(/(\u001b\[[0-9;]*m)|([^\u001b]+)/g)) {
      if (m[1]) {
        out += m[1];
        continue;
      }
      for (const g of graphemes(m[2]!)) {
        const w = graphemeWidth(g);
        if (this.col + w > width && this.col > textWidth(this.hang)) {
          out += `\n${this.hang}`;
          this.col = textWidth(this.hang);
        }
        out += g;
        this.col += w;
      }
    }
    return out;
  }

  private clearPending(): void {
    this.pending = "";
    this.pendingWidth = 0;
  }
}

function styleOnly(text: string): string {
  return text.replace(/[ \t]+/g, "");
}
