/**
 * A compaction as claude writes it: `system/compact_boundary` with `compact_metadata` (the stream)
 * or `compactMetadata` (the transcript: trigger, preTokens, postTokens), then a user record marked
 * `isCompactSummary` holding the summary claude goes on from. The records before it stay in the
 * transcript (compaction appends): a reader is shown them, with the compaction as a mark.
 */
export function compactionMark(event: Record<string, unknown>): string {
  const meta = (event.compact_metadata ?? event.compactMetadata ?? {}) as Record<string, unknown>;
  const trigger = typeof meta.trigger === "string" ? meta.trigger : null;
  const pre = meta.pre_tokens ?? meta.preTokens;
  const post = meta.post_tokens ?? meta.postTokens;
  const tokens =
    typeof pre === "number" ? (typeof post === "number" ? `: ${pre} → ${post} tokens` : `: ${pre} tokens before`) : "";
  return `/compact${trigger ? ` (${trigger})` : ""}${tokens}; claude goes on from a summary, the turns before are kept here`;
}

/** claude's summary record after a compaction (in the user's place, but no prompt). */
export function isCompactSummary(event: unknown): boolean {
  return (event as { isCompactSummary?: unknown } | null)?.isCompactSummary === true;
}
