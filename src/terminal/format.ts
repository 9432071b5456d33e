/** Small formatters shared by every command's output. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  return `${m}m${String(Math.round(s % 60)).padStart(2, "0")}s`;
}

export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "–";
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/** One line, at most `max` characters, with an ellipsis when cut. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function firstLines(text: string, count: number): string[] {
  const lines = text.replace(/\s+$/, "").split("\n");
  return lines.length > count ? [...lines.slice(0, count), `… (${lines.length - count} more lines)`] : lines;
}

export function formatStat(s: { filesChanged: number; insertions: number; deletions: number }): string {
  if (s.filesChanged === 0) return "no changes";
  return `${s.filesChanged} file${s.filesChanged === 1 ? "" : "s"} +${s.insertions} -${s.deletions}`;
}

/**
 * A word as a POSIX shell reads it back unchanged: for command lines nudge prints for the user to
 * paste, where a path with a space or `$(…)` in it would otherwise split or run something.
 */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_/.,:@%+=-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A /compact turn: claude's context before and after, as claude reported it. */
export function describeCompaction(c: { preTokens: number | null; postTokens: number | null }): string {
  return `compacted ${c.preTokens ?? "?"} → ${c.postTokens ?? "?"} tokens`;
}
