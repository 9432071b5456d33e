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

/** The query is kept in the address (`?q=`), so Back from a hit finds the search as it was left. */
const queryInAddress = () => new URLSearchParams(location.search).get("q") ?? "";

function keepQueryInAddress(q: string): void {
  const url = new URL(location.href);
  if (q) url.searchParams.set("q", q);
  else url.searchParams.delete("q");
  if (url.href !== location.href) history.replaceState(history.state, "", url);
}

export function SearchSessions() {
  const [query, setQuery] = useState(queryInAddress);
  const [hits, setHits] = useState<SearchHitView[] | null>(null);
  /** claude's own sessions not indexed yet (being indexed in the background): how many, and their bytes. */
  const [left, setLeft] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const asked = useRef(0);
  const list = useRef<HTMLOListElement>(null);
  /** The query as typed is looked up at once (Enter), else after a pause in the typing. */
  const [now, setNow] = useState(0);
  useEffect(() => {
    const q = query.trim();
    keepQueryInAddress(q);
    if (!q) {
      setHits(null);
      setError(null);
      return;
    }
    const mine = ++asked.current;
    const timer = setTimeout(
      () => {
        getJson<{ hits: SearchHitView[]; claudeLeft?: { sessions: number } }>(
          inRepo(`/api/search?q=${encodeURIComponent(q)}&limit=30`),
        ).then(
          (answer) =>
            mine === asked.current && (setHits(answer.hits), setLeft(answer.claudeLeft?.sessions ?? 0), setError(null)),
          (e: unknown) => mine === asked.current && (setHits(null), setError(e)),
        );
      },
      now ? 0 : 250,
    );
    return () => clearTimeout(timer);
  }, [query, now]);
  const links = () => [...(list.current?.querySelectorAll<HTMLAnchorElement>("a.hit") ?? [])];
  // Down from the box goes into the hits, Up and Down move among them, Enter opens one (a link's own key).
  const onBoxKey = (e: KeyboardEvent) => {
    if (e.key === "Enter" && !e.isComposing) {
      e.preventDefault();
      setNow((n) => n + 1);
    } else if (e.key === "ArrowDown" && links().length) {
      e.preventDefault();
      links()[0]!.focus();
    }
  };
  const onHitsKey = (e: KeyboardEvent) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    const all = links();
    const at = all.indexOf(document.activeElement as HTMLAnchorElement);
    if (at < 0) return;
    e.preventDefault();
    const next = at + (e.key === "ArrowDown" ? 1 : -1);
    if (next < 0) (e.currentTarget as HTMLElement).closest("section")?.querySelector("input")?.focus();
    else all[Math.min(next, all.length - 1)]!.focus();
  };
  return (
    <section class="search-sessions" aria-label="Search every session">
      <label class="filter">
        Search every session{" "}
        <input
          type="search"
          value={query}
          maxLength={1000}
          placeholder='words, "a phrase", prefix*'
          onInput={(e) => setQuery(e.currentTarget.value)}
          onKeyDown={onBoxKey}
        />
      </label>
      <ErrorLine error={error} />
      {hits && left > 0 ? (
        <p class="muted">
          {left.toLocaleString("en")} of claude's own sessions are not indexed yet (being indexed in the background):
          these results are from what is indexed.
        </p>
      ) : null}
      {hits && hits.length === 0 ? <p class="muted">Nothing found.</p> : null}
      {hits && hits.length ? (
        <ol class="hits" ref={list} onKeyDown={onHitsKey}>
          {hits.map((h, i) => (
            <li key={i}>
              <a
                class="hit"
                href={inRepo(`/${h.source === "claude" ? "c" : "s"}/${encodeURIComponent(h.session)}?turn=${h.turn}`)}
              >
                {h.session} · turn {h.turn}
              </a>{" "}
              {h.source === "claude" ? <span class="badge">claude's own</span> : null}{" "}
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
