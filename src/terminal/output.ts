/** Plain output helpers: JSON for machines, aligned columns for people. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

export function printTable(header: string[], rows: string[][], write = (s: string) => process.stdout.write(s)): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd();
  write(line(header) + "\n");
  for (const row of rows) write(line(row) + "\n");
}
