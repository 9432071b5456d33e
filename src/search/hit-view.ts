/**
 * A hit as it leaves nudge for a script or a page (`session search --json`, GET /api/search):
 * one-line snippet, where the query matched in it, the turn's prompt, the command that shows the
 * turn's diff. Secrets are masked in the snippet and the prompt as an export masks them, so
 * output piped into a file meant to be shared carries none (the terminal output, for the user's
 * eyes on their own machine, is not masked).
 */
import { inertValue } from "../base/inert-text.js";
import { oneLine } from "../base/format.js";
import type { SearchHit } from "./query.js";
import { maskHit, snippetOf } from "./snippet.js";
import type { Place } from "./turn-docs.js";

export interface SearchHitView {
  session: string;
  /** Whose session: nudge's (recorded, adopted, imported) or one of claude's own (never recorded, no code). */
  source: "nudge" | "claude";
  turn: number;
  /** When the turn ended (ISO). */
  at: string;
  where: Place;
  tool: string | null;
  prompt: string | null;
  snippet: string;
  /** [start, end) of each match in `snippet`, UTF-16 units. */
  matches: Array<[number, number]>;
  /** The command that shows what the turn changed (one of claude's own sessions has no code: the command that shows the turn). */
  diff: string;
}

export async function hitViews(hits: SearchHit[]): Promise<SearchHitView[]> {
  return Promise.all(hits.map(async (hit) => view(await maskHit(hit))));
}

function view(h: SearchHit): SearchHitView {
  const snippet = snippetOf(h.text, h.matches, { json: h.place === "tool-input" });
  // nudge's ids are base-36; claude's are UUIDs.
  const claude = h.session.includes("-");
  return {
    session: h.session,
    source: claude ? "claude" : "nudge",
    turn: h.turn,
    at: h.at,
    where: h.place,
    tool: h.tool === null ? null : inertValue(h.tool),
    prompt: h.prompt === null ? null : inertValue(oneLine(h.prompt, 200)),
    snippet: snippet.text,
    matches: snippet.matches,
    diff: claude ? `nudge session replay ${h.session} --turn ${h.turn}` : `nudge session diff ${h.session} ${h.turn}`,
  };
}
