/**
 * Plain output helpers: JSON for machines, aligned columns for people, and the two writes every
 * command's output goes through. Both writes are the output layer's guard (`inert`): nudge's
 * colours pass, any other control character a session's text brought is shown, not obeyed.
 */
import { inert, inertJson } from "../base/inert-text.js";
import { textWidth } from "../base/text-width.js";

/** Text for stdout (what the command was asked for). */
export function writeOut(text: string): void {
  process.stdout.write(inert(text));
}

/** Lines for stdout in one write: a plan of a thousand files is one call, not a thousand (~4 ms). */
export function writeLines(lines: string[]): void {
  if (lines.length > 0) writeOut(lines.join("\n") + "\n");
}

/** Resolves once everything written to stdout so far has been handed to the OS (a pipe's reader has it). */
export function stdoutFlushed(): Promise<void> {
  return new Promise((resolve) => process.stdout.write("", () => resolve()));
}

/** Text for stderr (nudge's notices, progress, errors). */
export function writeErr(text: string): void {
  process.stderr.write(inert(text));
}

export function printJson(value: unknown): void {
  process.stdout.write(inertJson(JSON.stringify(value, null, 2)) + "\n");
}

export function printTable(header: string[], given: string[][], write = writeOut): void {
  // A cell is one line: a folder name or a prompt with a line break in it would split its row.
  const rows = given.map((r) => r.map((c) => (/[\r\n]/.test(c) ? c.replace(/\r/g, "\\r").replace(/\n/g, "\\n") : c)));
  // Columns as a terminal draws them: a CJK character or an emoji takes two.
  const widths = header.map((h, i) => Math.max(textWidth(h), ...rows.map((r) => textWidth(r[i] ?? ""))));
  const pad = (c: string, width: number) => c + " ".repeat(Math.max(0, width - textWidth(c)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : pad(c, widths[i]!)))
      .join("  ")
      .trimEnd();
  write(line(header) + "\n");
  for (const row of rows) write(line(row) + "\n");
}
