/**
 * Follows one turn through claude's stream: its result, the claude session it belongs to, the
 * last assistant message (where a fork resumes), a compaction. Only well-formed events of the
 * known kinds count: a line after claude's last result (a wrapper's output, garbage) can neither
 * end a turn nor change which claude session is resumed.
 */
import type { Turn, TurnResult, TurnTokens } from "../store/manifest-schema.js";
import type { ResultEvent, StreamEvent } from "../claude/stream-events.js";

export class TurnFollower {
  result: ResultEvent | null = null;
  claudeSessionId: string | null = null;
  lastAssistantUuid: string | null = null;
  compaction: { preTokens: number | null; postTokens: number | null; trigger?: "manual" | "auto" | null } | null = null;
  private interrupted = false;
  /** Claude's own UI writes no result line: its Stop hook says the turn ended (see endTurnByHook). */
  private endedByHook = false;
  /** Each API message's usage, once (claude's transcript repeats it on every line of one message). */
  private readonly usage = new Map<string, Record<string, unknown>>();

  interruptRequested(): void {
    this.interrupted = true;
  }

  hookEnded(): void {
    this.endedByHook = true;
  }

  /** Take in one event; true when it is the result that ends this turn. */
  observe(event: StreamEvent): boolean {
    if (event.type === "system" || event.type === "assistant" || event.type === "user" || event.type === "result") {
      // A line of claude's transcript (its own UI's sessions) names the session in camelCase.
      const id = event.session_id ?? event.sessionId;
      if (typeof id === "string") this.claudeSessionId = id;
    }
    if (event.type === "assistant" && event.uuid && !event.parent_tool_use_id) this.lastAssistantUuid = event.uuid;
    if (event.type === "assistant" && typeof event.message.id === "string") {
      const usage = (event.message as { usage?: unknown }).usage;
      if (typeof usage === "object" && usage !== null)
        this.usage.set(event.message.id, usage as Record<string, unknown>);
    }
    if (event.type === "system" && event.subtype === "compact_boundary") {
      // stream-json names its fields in snake_case; claude's transcript (its own UI) in camelCase.
      const e = event as { compact_metadata?: Record<string, unknown>; compactMetadata?: Record<string, unknown> };
      const meta = e.compact_metadata ?? e.compactMetadata;
      const trigger = meta?.trigger === "manual" || meta?.trigger === "auto" ? meta.trigger : null;
      this.compaction = {
        preTokens: numberOrNull(meta?.pre_tokens ?? meta?.preTokens),
        postTokens: numberOrNull(meta?.post_tokens ?? meta?.postTokens),
        ...(trigger ? { trigger } : {}),
      };
    }
    if (event.type === "result" && !this.result) {
      this.result = event;
      return true;
    }
    return false;
  }

  /** The tokens the turn's API messages used (what a turn with no result line keeps instead of a cost), or null. */
  get tokens(): TurnTokens | null {
    if (this.usage.size === 0) return null;
    const sum = (key: string) =>
      [...this.usage.values()].reduce((n, u) => n + (typeof u[key] === "number" ? (u[key] as number) : 0), 0);
    return {
      input: sum("input_tokens"),
      output: sum("output_tokens"),
      cacheRead: sum("cache_read_input_tokens"),
      cacheWrite: sum("cache_creation_input_tokens"),
    };
  }

  get status(): Turn["status"] {
    // No result after the user asked to stop (Ctrl-C twice: claude was stopped): interrupted, as asked.
    if (!this.result) return this.endedByHook ? "complete" : this.interrupted ? "interrupted" : "incomplete";
    // An interrupt sent as claude was finishing changed nothing: its result says "completed". A
    // result claude ended early says "aborted_…" (also what a recovery, which never saw the Ctrl-C, goes by).
    if (this.result.terminal_reason?.startsWith("aborted")) return "interrupted";
    return this.interrupted && this.result.terminal_reason !== "completed" ? "interrupted" : "complete";
  }
}

function numberOrNull(value: unknown): number | null {
  return typeof value === "number" ? value : null;
}

/**
 * The result as the manifest keeps it. claude's total_cost_usd is cumulative over its process's
 * life; the turn's own cost is the sum of model_usage_since_last_result when claude gives it,
 * else the difference from the process's total at the previous result (`processCostBefore`).
 */
export function resultSummary(event: ResultEvent, processCostBefore: number): TurnResult {
  const total = event.total_cost_usd;
  const perModel = event.model_usage_since_last_result;
  const cost = perModel
    ? Object.values(perModel).reduce((sum, m) => sum + (m.costUSD ?? 0), 0)
    : total !== undefined
      ? total - processCostBefore
      : null;
  return {
    subtype: event.subtype,
    isError: event.is_error,
    costUsd: cost,
    durationMs: event.duration_ms ?? null,
    numTurns: event.num_turns ?? null,
    usage: event.usage ?? null,
  };
}
