/** Formatters shared by every layer that shows numbers to a person. */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "–";
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  return `${m}m${String(Math.round(s % 60)).padStart(2, "0")}s`;
}

export interface Compaction {
  preTokens: number | null;
  postTokens: number | null;
}

/** A /compact's effect on claude's context, as claude reported it: "51234 → 8012 tokens". */
export function tokenChange(c: Compaction): string {
  return `${c.preTokens ?? "?"} → ${c.postTokens ?? "?"} tokens`;
}
