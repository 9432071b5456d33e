/** Small formatters shared by every command's output. */
import type { Turn } from "../bundle/manifest-schema.js";
import { tokenChange, type Compaction } from "../format.js";

export { firstLines, formatCost, formatDuration, oneLine } from "../format.js";

/** 12345 → "12,345", without Intl (whose first use costs a listing of thousands of sessions more than the listing). */
export function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** "1 file", "3 files". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
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
