/** A turn's line on the session page: what it cost, how long it took, what it changed. */
import type { PendingTurn, Turn } from "../store/manifest-schema.js";
import type { TurnSummaryView } from "./view-types.js";

export function turnSummary(turn: Turn): TurnSummaryView {
  const r = turn.result;
  return {
    n: turn.n,
    prompt: turn.prompt,
    // As `session show` says it: a turn an API error ended reads "error", not claude's "success".
    status:
      turn.status !== "complete"
        ? turn.status
        : !r
          ? "done"
          : r.isError && r.subtype === "success"
            ? "error"
            : r.subtype,
    startedAt: turn.startedAt,
    endedAt: turn.endedAt,
    costUsd: r?.costUsd ?? null,
    durationMs: turnDuration(turn),
    tokens: tokens(r?.usage ?? null),
    files: turn.patch.filesChanged,
    added: turn.patch.insertions,
    removed: turn.patch.deletions,
    edits: turn.edits
      ? {
          files: turn.edits.patch.filesChanged,
          added: turn.edits.patch.insertions,
          removed: turn.edits.patch.deletions,
        }
      : null,
    check: turn.check ?? null,
    compaction: turn.compaction ?? null,
    sharedWith: turn.sharedWith ?? [],
    loop: turn.loop
      ? {
          role: turn.loop.role,
          iteration: turn.loop.iteration,
          fresh: turn.loop.fresh,
          model: turn.loop.model,
          promise: turn.loop.promise ?? null,
          verdict: turn.loop.verdict ?? null,
        }
      : null,
  };
}

/**
 * How long a turn took: claude's own measure, else (an adopted turn, one of claude's own UI, one
 * ended with no result) from its start to its end, as replay says it; none for turn 0.
 */
export function turnDuration(turn: Pick<Turn, "n" | "result" | "startedAt" | "endedAt">): number | null {
  if (turn.n === 0) return null;
  if (typeof turn.result?.durationMs === "number") return turn.result.durationMs;
  const span = Date.parse(turn.endedAt) - Date.parse(turn.startedAt);
  return Number.isFinite(span) && span >= 0 ? span : null;
}

/** A turn with nothing saved of its code, cost or checks: one in flight, or one of claude's own sessions. */
export function bareSummary(
  t: Pick<TurnSummaryView, "n" | "prompt" | "status" | "startedAt" | "endedAt" | "durationMs">,
): TurnSummaryView {
  return {
    ...t,
    costUsd: null,
    tokens: null,
    files: 0,
    added: 0,
    removed: 0,
    edits: null,
    check: null,
    compaction: null,
    sharedWith: [],
    loop: null,
  };
}

/** A turn begun and not saved: in flight, or left by a crash. */
export function pendingSummary(p: PendingTurn, recording: boolean): TurnSummaryView {
  return bareSummary({
    n: p.n,
    prompt: p.prompt,
    status: recording ? "running" : "not saved",
    startedAt: p.startedAt,
    endedAt: p.ended?.endedAt ?? p.startedAt,
    durationMs: null,
  });
}

/** claude's usage record (API field names) as the page's token counts; null when it has none. */
function tokens(usage: Record<string, unknown> | null): TurnSummaryView["tokens"] {
  if (!usage) return null;
  const n = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
  return {
    input: n("input_tokens"),
    output: n("output_tokens"),
    cacheRead: n("cache_read_input_tokens"),
    cacheWrite: n("cache_creation_input_tokens"),
  };
}
