/** Small formatters shared by every command's output. */
import type { Turn } from "../bundle/manifest-schema.js";
import { tokenChange, type Compaction } from "../format.js";
import { visible } from "../inert-text.js";

export { formatCost, formatDuration } from "../format.js";

/** "1 file", "3 files". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** One line, at most `max` characters, with an ellipsis when cut. */
export function oneLine(text: string, max: number): string {
  const flat = visible(text.replace(/\s+/g, " ").trim());
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function firstLines(text: string, count: number): string[] {
  const lines = visible(text.replace(/\s+$/, "")).split("\n");
  return lines.length > count ? [...lines.slice(0, count), `… (${lines.length - count} more lines)`] : lines;
}

export function formatStat(s: { filesChanged: number; insertions: number; deletions: number }): string {
  if (s.filesChanged === 0) return "no changes";
  return `${s.filesChanged} file${s.filesChanged === 1 ? "" : "s"} +${s.insertions} -${s.deletions}`;
}

/** A /compact turn: claude's context before and after, as claude reported it. */
export function describeCompaction(c: Compaction): string {
  return `compacted ${tokenChange(c)}`;
}

/**
 * How a turn ended, in a word: claude's result subtype, except that a turn an API error ended has
 * subtype "success" with is_error set, which must not read as a success.
 */
export function turnOutcome(turn: Pick<Turn, "status" | "result">): string {
  if (turn.status !== "complete") return turn.status;
  if (!turn.result) return "done";
  return turn.result.isError && turn.result.subtype === "success" ? "error" : turn.result.subtype;
}
