/**
 * A session's page: its header, the timeline, a turn comparison, and one section per turn. The
 * turn list is drawn at once from the SessionView; a turn's entries are fetched and drawn when it
 * comes near the screen, so a 1,000-turn session is usable at once. Live: the server's events say
 * which turn grew, and that turn is fetched and replaced whole (never appended to: no duplicates).
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import type { SessionView, TurnSummaryView } from "../../../../view/view-types.js";
import { title } from "../format.js";
import { listen } from "../live.js";
import type { Source } from "../source.js";
import { CompareTurns } from "./compare-turns.js";
import { ErrorLine } from "./error-line.js";
import { SearchBox } from "./search-box.js";
import { SessionHeader } from "./session-header.js";
import { Timeline } from "./timeline.js";
import { TurnSection } from "./turn-section.js";

const FIRST_SECTIONS = 60;
const BATCH_SECTIONS = 150;

export function SessionPage({ source, id, scrollTo = null }: { source: Source; id: string; scrollTo?: number | null }) {
  const [view, setView] = useState<SessionView | null>(null);
  const [error, setError] = useState<unknown>(null);
  /** Bumped per turn when the server says it changed: the section refetches. */
  const [versions, setVersions] = useState<Record<number, number>>({});
  /** Turns to draw now, whether or not they are near the screen (a search hit, a jump). */
  const [forced, setForced] = useState<Set<number>>(new Set());
  /** Sections drawn so far: the first ones at once, the rest in batches, so the page answers from the start. */
  const [drawn, setDrawn] = useState(FIRST_SECTIONS);

  const load = useCallback(() => source.session(id).then(setView, setError), [source, id]);
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (view) document.title = `${title(view.session.firstPrompt)} · nudge`;
  }, [view?.session.firstPrompt]);
  useEffect(() => {
    if (source.static) return;
    const bump = (n: number) => setVersions((v) => ({ ...v, [n]: (v[n] ?? 0) + 1 }));
    return listen(`/api/sessions/${encodeURIComponent(id)}/events`, {
      session: (data) => {
        void load();
        if (typeof data.pending === "number") bump(data.pending);
        if (typeof data.turns === "number") bump(data.turns);
      },
      turn: (data) => {
        if (typeof data.n === "number") bump(data.n);
      },
    });
  }, [source, id, load]);

  useEffect(() => {
    const total = view?.turns.length ?? 0;
    if (drawn >= total) return;
    const timer = setTimeout(() => setDrawn((d) => d + BATCH_SECTIONS), 0);
    return () => clearTimeout(timer);
  }, [drawn, view?.turns.length]);

  const jump = useCallback((n: number) => {
    setDrawn(Infinity);
    setForced((f) => new Set([...f, n]));
    requestAnimationFrame(() => document.getElementById(`turn-${n}`)?.scrollIntoView({ block: "start" }));
  }, []);
  useEffect(() => {
    if (view && scrollTo !== null) jump(scrollTo);
  }, [view !== null]);

  if (!view) return <main class="session">{error ? <ErrorLine error={error} /> : <p class="muted">Loading…</p>}</main>;
  const turns: TurnSummaryView[] = view.turns;
  const pending = view.pending && !turns.some((t) => t.n === view.pending!.n) ? view.pending : null;
  return (
    <main class="session">
      <SessionHeader source={source} view={view} onChanged={() => void load()} />
      <ErrorLine error={error} />
      {source.static ? (
        <SearchBox
          onSearch={() => {
            // Every turn drawn, so the search looks at all of them.
            setDrawn(Infinity);
            setForced(new Set(turns.map((t) => t.n)));
          }}
        />
      ) : null}
      <Timeline turns={turns} onPick={jump} />
      {!source.static && turns.length > 1 ? <CompareTurns source={source} id={view.session.id} turns={turns.map((t) => t.n)} /> : null}
      <div id="turns">
        {turns.slice(0, drawn).map((t) => (
          <TurnSection key={t.n} source={source} sessionId={view.session.id} summary={t} version={versions[t.n] ?? 0} forced={forced.has(t.n)} onChanged={() => void load()} />
        ))}
        {pending ? <TurnSection key={`p${pending.n}`} source={source} sessionId={view.session.id} summary={null} pendingN={pending.n} version={versions[pending.n] ?? 0} forced onChanged={() => void load()} /> : null}
      </div>
    </main>
  );
}
