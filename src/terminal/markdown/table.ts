/**
 * A markdown table drawn with box lines, its columns fitted to the terminal: when the cells are
 * wider than the screen the widest columns give way first, and a cell cut to its column loses its
 * styling and ends in "…". Not a table (no `|---|` row under the first): null.
 */
import { stripAnsi, fitWidth, textWidth } from "../../base/text-width.js";
import { renderInline, sgr } from "./inline.js";

type Align = "left" | "right" | "center";

const DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
/** No column is squeezed below this. */
const MIN_COLUMN = 3;

export function renderTable(rows: string[], columns: number): string | null {
  if (rows.length < 2 || !DELIMITER.test(rows[1]!)) return null;
  const aligns: Align[] = cells(rows[1]!).map((c) =>
    c.startsWith(":") && c.endsWith(":") ? "center" : c.endsWith(":") ? "right" : "left",
  );
  const body = [rows[0]!, ...rows.slice(2)].map((row) => cells(row).map((c) => renderInline(c)));
  const n = Math.max(aligns.length, ...body.map((r) => r.length));
  const widths = Array.from({ length: n }, (_, i) => Math.max(MIN_COLUMN, ...body.map((r) => textWidth(r[i] ?? ""))));
  // Borders and padding: "│ " before each column, " │" after the last.
  const room = columns - 1 - (3 * n + 1);
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= MIN_COLUMN) break;
    widths[widest]!--;
  }
  const bar = (l: string, m: string, r: string) => sgr("dim", l + widths.map((w) => "─".repeat(w + 2)).join(m) + r);
  const row = (cellsOfRow: string[], bold: boolean) =>
    sgr("dim", "│") +
    widths
      .map((w, i) => {
        let cell = cellsOfRow[i] ?? "";
        if (textWidth(cell) > w) cell = fitWidth(stripAnsi(cell), w);
        return ` ${pad(bold ? sgr("bold", cell) : cell, w, aligns[i] ?? "left")} `;
      })
      .join(sgr("dim", "│")) +
    sgr("dim", "│");
  return [
    bar("┌", "┬", "┐"),
    row(body[0]!, true),
    bar("├", "┼", "┤"),
    ...body.slice(1).map((r) => row(r, false)),
    bar("└", "┴", "┘"),
  ].join("\n");
}

/** A row's cells: split at `|` not escaped, the outer pipes dropped, each trimmed. */
function cells(row: string): string[] {
  const parts = row.trim().split(/(?<!\\)\|/);
  if (parts[0]?.trim() === "") parts.shift();
  if (parts.length > 0 && parts.at(-1)?.trim() === "") parts.pop();
  return parts.map((p) => p.trim().replace(/\\\|/g, "|"));
}

function pad(text: string, width: number, align: Align): string {
  const space = Math.max(0, width - textWidth(text));
  if (align === "right") return " ".repeat(space) + text;
  if (align === "center") return " ".repeat(Math.floor(space / 2)) + text + " ".repeat(Math.ceil(space / 2));
  return text + " ".repeat(space);
}
