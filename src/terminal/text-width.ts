/**
 * How many terminal columns text takes: what the prompt line and the status line need to know
 * where the cursor is and when a line wraps. ANSI styling takes none; East Asian wide characters
 * and most emoji take two; combining marks and zero-width joiners take none. Tabs are shown as
 * TAB_WIDTH spaces (see `expandTabs`), so they never meet a tab stop we cannot predict.
 */
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;
export const TAB_WIDTH = 4;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

export function expandTabs(text: string): string {
  return text.replace(/\t/g, " ".repeat(TAB_WIDTH));
}

export function charWidth(codePoint: number): number {
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

/** Columns of `text` on one row (no newlines expected), styling ignored. */
export function textWidth(text: string): number {
  let width = 0;
  for (const ch of stripAnsi(text)) width += charWidth(ch.codePointAt(0)!);
  return width;
}

/** The longest start of `text` (unstyled) that fits in `columns`, with "…" when cut. */
export function fitWidth(text: string, columns: number): string {
  if (textWidth(text) <= columns) return text;
  let out = "";
  let width = 0;
  for (const ch of text) {
    const w = charWidth(ch.codePointAt(0)!);
    if (width + w > columns - 1) break;
    out += ch;
    width += w;
  }
  return `${out}…`;
}
