/** What listings and live runs say about a session as a whole. */
import type { Turn } from "./manifest-schema.js";
import type { StoredSession } from "./store.js";

/** What the session's turns cost, in USD (turn 0, the starting state, costs nothing). */
export function totalCost(turns: Turn[]): number {
  return turns.reduce((sum, t) => sum + (t.result?.costUsd ?? 0), 0);
}

/** One session as `session list` and `session show` present it (and their --json). */
export function summarize(s: StoredSession) {
  const m = s.manifest;
  const asked = m.turns.filter((t) => t.n > 0);
  return {
    id: m.id,
    path: s.dir,
    startedAt: m.createdAt,
    updatedAt: m.updatedAt,
    branch: m.repo.branch,
    turns: asked.length,
    firstPrompt: asked[0]?.prompt ?? null,
    lastPrompt: asked.at(-1)?.prompt ?? null,
    costUsd: totalCost(m.turns),
    durationMs: asked.reduce((sum, t) => sum + (t.result?.durationMs ?? 0), 0),
    state: s.state,
    parent: m.parent,
    rewoundTo: m.rewoundTo,
  };
}
