/**
 * The sessions page's search across every session (GET /api/search, what `nudge session search`
 * finds): best match first, each hit linking to its turn, the matched words marked. The snippet
 * is text: the marks are cut from it by the server's offsets, never parsed as HTML.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { SearchHitView } from "../../../../search/hit-view.js";
import { PLACE_NAMES } from "../../../../search/places.js";
import { when } from "../format.js";
import { getJson } from "../source.js";
import { ErrorLine } from "./error-line.js";
import { inRepo } from "../repo-base.js";

export function SearchSessions() {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<SearchHitView[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const asked = useRef(0);
  useEffect(() => {
    const q = query.trim();
    if (!q) {
      setHits(null);
      setError(null);
      return;
    }
    const mine = ++asked.current;
    const timer = setTimeout(() => {
      getJson<{ hits: SearchHitView[] }>(inRepo(`/api/search?q=${encodeURIComponent(q)}&limit=30`)).then(
        (answer) => mine === asked.current && (setHits(answer.hits), setError(null)),
        (e: unknown) => mine === asked.current && (setHits(null), setError(e)),
      );
    }, 250);
    return () => clearTimeout(timer);
  }, [query]);
  return (
    <section class="search-sessions" aria-label="Search every session">
      <label class="filter">
        Search every session{" "}
        <input type="search" value={query} placeholder='words, "a phrase", prefix*' onInput={(e) => setQuery(e.currentTarget.value)} />
      </label>
      <ErrorLine error={error} />
      {hits && hits.length === 0 ? <p class="muted">Nothing found.</p> : null}
      {hits && hits.length ? (
        <ol class="hits">
          {hits.map((h, i) => (
            <li key={i}>
              <a href={inRepo(`/s/${encodeURIComponent(h.session)}?turn=${h.turn}`)}>
                {h.session} · turn {h.turn}
              </a>{" "}
              <span class="muted small">
                {when(h.at)} · {PLACE_NAMES[h.where] ?? h.where}
                {h.tool ? ` (${h.tool})` : ""}
              </span>
              <div class="snippet">{marked(h.snippet, h.matches)}</div>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}

/** The snippet with each match in a <mark>, from the server's offsets (clamped: never trusted to be in range). */
function marked(text: string, matches: Array<[number, number]>) {
  const parts = [];
  let at = 0;
  for (const [start, end] of [...matches].sort((a, b) => a[0] - b[0])) {
    const s = Math.max(at, Math.min(start, text.length));
    const e = Math.max(s, Math.min(end, text.length));
    if (s > at) parts.push(text.slice(at, s));
    if (e > s) parts.push(<mark key={s}>{text.slice(s, e)}</mark>);
    at = e;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}
