/** Formatters shared by every layer that shows numbers or claude's words to a person (terminal and web). */
import { visible } from "./inert-text.js";
import { fitRow, textWidth } from "./text-width.js";

/**
 * "$0.1645" below a dollar (a turn's cost is often a fraction of a cent), "$2.50" above; an exact
 * zero is "$0.00" as any whole amount, and a cost too small for four places never reads as zero.
 */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "–";
  if (usd === 0) return "$0.00";
  if (usd > 0 && usd < 0.00005) return "<$0.0001";
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/** "25k tokens" (input, cache included, plus output): what a turn without a cost shows instead. */
export function formatTokens(t: { input: number; output: number; cacheRead: number; cacheWrite: number }): string {
  const n = t.input + t.output + t.cacheRead + t.cacheWrite;
  return `${n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : n} tokens`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  // Round the whole seconds first: 179.6 s is 3m00s, not 2m60s.
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
}

export interface Compaction {
  preTokens: number | null;
  postTokens: number | null;
  trigger?: "manual" | "auto" | null | undefined;
}

/** A /compact's effect on claude's context, as claude reported it: "51234 → 8012 tokens". */
export function tokenChange(c: Compaction): string {
  return `${c.preTokens ?? "?"} → ${c.postTokens ?? "?"} tokens`;
}

/**
 * One line, at most `max` terminal columns (a CJK character or an emoji takes two), with an
 * ellipsis when cut; cut between graphemes, never inside one.
 */
export function oneLine(text: string, max: number): string {
  const flat = visible(text.replace(/\s+/g, " ").trim());
  return textWidth(flat) > max ? `${fitRow(flat, max - 1)}…` : flat;
}

export function firstLines(text: string, count: number): string[] {
  const lines = visible(text.replace(/\s+$/, "")).split("\n");
  return lines.length > count ? [...lines.slice(0, count), `… (${lines.length - count} more lines)`] : lines;
}

/** A turn's running time on a status line: whole seconds, then minutes ("7s", "2m05s"). */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

/** 12345 → "12,345", without Intl (whose first use costs a listing of thousands of sessions more than the listing). */
export function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** "1 file", "3 files". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** "3 files +10 -2", or "no changes". */
export function formatStat(s: { filesChanged: number; insertions: number; deletions: number }): string {
  if (s.filesChanged === 0) return "no changes";
  return `${s.filesChanged} file${s.filesChanged === 1 ? "" : "s"} +${s.insertions} -${s.deletions}`;
}

/** A /compact turn: claude's context before and after, as claude reported it (and, when claude said, what started it). */
export function describeCompaction(c: Compaction): string {
  return c.trigger ? `compacted here (${c.trigger}, ${tokenChange(c)})` : `compacted ${tokenChange(c)}`;
}

/**
 * How a turn ended, in a word: claude's result subtype, except that a turn an API error ended has
 * subtype "success" with is_error set, which must not read as a success.
 */
export function turnOutcome(turn: { status: string; result: { isError: boolean; subtype: string } | null }): string {
  if (turn.status !== "complete") return turn.status;
  if (!turn.result) return "done";
  return turn.result.isError && turn.result.subtype === "success" ? "error" : turn.result.subtype;
}
