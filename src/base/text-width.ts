/**
 * How many terminal columns text takes: what the prompt line and the status line need to know
 * where the cursor is and when a line wraps. ANSI styling takes none. Counted per grapheme (what a
 * terminal draws in one cell or two): East Asian wide characters and emoji take two, and so does an
 * emoji made of several code points (a skin tone, a ZWJ family, a flag, a text symbol with VS16);
 * combining marks and zero-width joiners add nothing. In the prompt line a tab is shown as
 * TAB_WIDTH spaces (`expandTabs`); claude's output has its tabs expanded to the terminal's own
 * stops (`expandTabsFrom`), so a cursor put back after a redraw lands where the terminal left it.
 */
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;
const TAB_WIDTH = 4;
/** A terminal's tab stops: every 8 columns, as `tabs` and every terminal nudge targets set them. */
const TAB_STOP = 8;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

export function expandTabs(text: string): string {
  return text.replace(/\t/g, " ".repeat(TAB_WIDTH));
}

/**
 * Tabs as the spaces the terminal would move over, for text written from column `column` (what is
 * already on the line): each tab reaches the next multiple of TAB_STOP. Newlines start again at 0.
 */
export function expandTabsFrom(text: string, column: number): string {
  if (!text.includes("\t")) return text;
  let col = column;
  let out = "";
  for (const piece of stripAnsiSplit(text)) {
    if (piece.ansi) {
      out += piece.text;
      continue;
    }
    for (const g of graphemes(piece.text)) {
      if (g === "\t") {
        const n = TAB_STOP - (col % TAB_STOP);
        out += " ".repeat(n);
        col += n;
      } else {
        out += g;
        col = g === "\n" ? 0 : col + graphemeWidth(g);
      }
    }
  }
  return out;
}

/** Text cut into styling and plain runs, so tabs are counted on what the terminal shows. */
function stripAnsiSplit(text: string): Array<{ text: string; ansi: boolean }> {
  const parts: Array<{ text: string; ansi: boolean }> = [];
  let at = 0;
  for (const m of text.matchAll(ANSI)) {
    if (m.index > at) parts.push({ text: text.slice(at, m.index), ansi: false });
    parts.push({ text: m[0], ansi: true });
    at = m.index + m[0].length;
  }
  if (at < text.length) parts.push({ text: text.slice(at), ansi: false });
  return parts;
}

// Made on first use: building it loads ICU's break rules (~20 ms), which a command that writes
// only plain lines (a hook claude waits on) never needs.
let segmenter: Intl.Segmenter | null = null;

export function graphemes(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** An emoji drawn as a picture: emoji presentation, or a symbol turned into one (VS16, a skin tone, ZWJ). */
const EMOJI =
  /\p{Emoji_Presentation}|\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier}|\u200D)|\p{Regional_Indicator}{2}/u;

/** Columns of one grapheme: its first code point's, or two for an emoji of several code points. */
export function graphemeWidth(g: string): number {
  const first = g.codePointAt(0)!;
  if (g.length > 1 && EMOJI.test(g)) return 2;
  return charWidth(first);
}

function charWidth(codePoint: number): number {
  if (codePoint === 0x09) return TAB_WIDTH;
  if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint < 0xa0)) return 0;
  // Combining marks, zero-width space/joiners, variation selectors.
  if (
    (codePoint >= 0x300 && codePoint <= 0x36f) ||
    (codePoint >= 0x200b && codePoint <= 0x200f) ||
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f) ||
    (codePoint >= 0x1ab0 && codePoint <= 0x1aff) ||
    (codePoint >= 0x20d0 && codePoint <= 0x20ff)
  ) {
    return 0;
  }
  if (
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf && codePoint !== 0x303f) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1f64f) ||
    (codePoint >= 0x1f900 && codePoint <= 0x1f9ff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/**
 * Text whose every character is a grapheme of its own one column wide: printable ASCII (most of
 * claude's text), Latin-1 and Latin Extended letters, and the punctuation of U+2010–U+2027 (the
 * "…" a cut cell ends with). It needs no segmenting: building the segmenter costs a listing ~20 ms.
 */
const ONE_COLUMN_EACH = /^[\x20-\x7e\u00a0-\u02ff\u2010-\u2027]*$/;

/** Columns of `text` on one row (no newlines expected), styling ignored. */
export function textWidth(text: string): number {
  const plain = stripAnsi(text);
  let width = 0;
  if (ONE_COLUMN_EACH.test(plain)) return plain.length;
  for (const g of graphemes(plain)) width += graphemeWidth(g);
  return width;
}

/** The longest start of `text` (unstyled) that fits in `columns`, with "…" when cut. */
export function fitWidth(text: string, columns: number): string {
  return textWidth(text) <= columns ? text : `${fitRow(text, columns - 1)}…`;
}

/** The longest start of `text` (unstyled) that fits in `columns`, cut between graphemes, without an ellipsis. */
export function fitRow(text: string, columns: number): string {
  if (ONE_COLUMN_EACH.test(text)) return text.slice(0, Math.max(0, columns));
  let out = "";
  let width = 0;
  for (const g of graphemes(text)) {
    const w = graphemeWidth(g);
    if (width + w > columns) break;
    out += g;
    width += w;
  }
  return out;
}
