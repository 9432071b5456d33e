/** What listings say about a session as a whole, computed from its turns (and kept in its header). */
import type { ManifestHeader, Summary, Turn } from "./manifest-schema.js";

/** What the session's turns cost, in USD (turn 0, the starting state, costs nothing). */
export function totalCost(turns: Turn[]): number {
  return turns.reduce((sum, t) => sum + (t.result?.costUsd ?? 0), 0);
}

export function summaryOf(turns: Turn[]): Summary {
  const asked = turns.filter((t) => t.n > 0);
  return {
    turns: asked.length,
    costUsd: totalCost(turns),
    durationMs: asked.reduce((sum, t) => sum + (t.result?.durationMs ?? 0), 0),
    firstPrompt: asked[0]?.prompt ?? null,
    lastPrompt: asked.at(-1)?.prompt ?? null,
    unpriced: asked.filter((t) => typeof t.result?.costUsd !== "number").length,
    ...sharedOf(turns),
  };
}

/** The sessions any turn shared the work tree with, in the order first met (no key when none: headers stay as they were). */
function sharedOf(turns: Turn[]): { sharedWith?: string[] } {
  const ids = [...new Set(turns.flatMap((t) => t.sharedWith ?? []))];
  return ids.length ? { sharedWith: ids } : {};
}

/** One session as `session list` and `session show` present it (and their --json). */
export function summarize(s: { dir: string; header: ManifestHeader; state: string }) {
  const m = s.header;
  return {
    id: m.id,
    path: s.dir,
    startedAt: m.createdAt,
    updatedAt: m.updatedAt,
    branch: m.repo.branch,
    turns: m.summary.turns,
    firstPrompt: m.summary.firstPrompt,
    lastPrompt: m.summary.lastPrompt,
    // No turn with claude's result (claude's own UI writes none): cost and time unknown, never a made-up 0.
    costUsd: noResults(m.summary) ? null : m.summary.costUsd,
    durationMs: noResults(m.summary) ? null : m.summary.durationMs,
    state: s.state,
    parent: m.parent,
    rewoundTo: m.rewoundTo,
    origin: m.origin ?? null,
    repairedAt: m.repairedAt ?? null,
    // Turns that ran while these sessions also had one running here (session show marks which).
    sharedWith: m.summary.sharedWith ?? [],
  };
}

const noResults = (s: Summary) => s.turns > 0 && s.unpriced === s.turns;
