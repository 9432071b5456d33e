/**
 * What the index knows of one of claude's own sessions: its transcript's size and time when it
 * was indexed. Apart from claude-index.ts, which indexes them: a search only asks which are not
 * indexed as they are now, and need not load the view layer that indexing reads them through.
 */
import type { ClaudeSession } from "../live/claude-own-sessions.js";
import type { SearchDb } from "./search-db.js";

export function claudeStamp(s: Pick<ClaudeSession, "bytes" | "updatedAt">): string {
  return `claude:${s.bytes}:${s.updatedAt}`;
}

/** Those of `sessions` the index does not hold as they are now. */
export function notIndexed(db: SearchDb, sessions: ClaudeSession[]): ClaudeSession[] {
  const known = new Map(
    (
      db.prepare("SELECT id, stamp FROM sessions WHERE id LIKE '%-%'").all() as Array<{ id: string; stamp: string }>
    ).map((r) => [r.id, r.stamp]),
  );
  return sessions.filter((s) => known.get(s.id) !== claudeStamp(s));
}
