/** Numbers as the CLI shows them ($0.1645, 2.5s): the same formatters, bundled into the page. */
export { formatCost as cost, formatDuration as duration, formatElapsed as elapsed } from "../../../base/format.js";

/** "2026-11-22 01:07", in the reader's time zone. */
export function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function changes(c: { files: number; added: number; removed: number }): string {
  return c.files === 0 ? "no changes" : `${plural(c.files, "file")} +${c.added} −${c.removed}`;
}

/** A session's title: its first prompt, on one line. */
export function title(firstPrompt: string | null): string {
  const line = firstPrompt?.replace(/\s+/g, " ").trim();
  return line ? (line.length > 120 ? `${line.slice(0, 119)}…` : line) : "(no prompt)";
}
