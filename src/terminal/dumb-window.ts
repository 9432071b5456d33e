/**
 * A dumb terminal (TERM=dumb) can only go back along its row (\r, backspace): a line that wraps
 * cannot be redrawn, and drawing it again on every key prints it again below. So the line being
 * edited is shown one row wide, scrolled to keep the cursor in view, as readline's
 * horizontal-scroll mode does: `<` marks text cut off on the left, `>` on the right.
 */
import { graphemes, graphemeWidth, stripAnsi, textWidth } from "./text-width.js";

export interface Window {
  text: string;
  width: number;
  /** The cursor's column in `text`. */
  col: number;
}

export function dumbWindow(line: string, col: number, columns: number): Window {
  const width = textWidth(line);
  // columns - 1: a line that fills the row leaves the cursor at the margin, where some terminals wrap.
  const room = columns - 1;
  if (width <= room) return { text: line, width, col };
  const cells = graphemes(stripAnsi(line)).map((g) => ({ g, w: graphemeWidth(g) }));
  // Start far enough right that "<", the text up to the cursor and the cursor itself fit.
  let start = 0;
  let startCol = 0;
  while (start < cells.length && col - startCol > room - 2) startCol += cells[start++]!.w;
  let text = start > 0 ? "<" : "";
  let used = text.length;
  let i = start;
  for (; i < cells.length; i++) {
    const last = i === cells.length - 1;
    if (used + cells[i]!.w > (last ? room : room - 1)) break; // room for ">" unless this is the end
    text += cells[i]!.g;
    used += cells[i]!.w;
  }
  if (i < cells.length) {
    text += ">";
    used += 1;
  }
  return { text, width: used, col: (start > 0 ? 1 : 0) + col - startCol };
}
