/**
 * A session's page: its header, the timeline, a turn comparison, and one section per turn. The
 * turn list is drawn at once from the SessionView; a turn's entries are fetched and drawn when it
 * comes near the screen, so a 1,000-turn session is usable at once. Live: the server's events say
 * which turn grew, and that turn is fetched and replaced whole (never appended to: no duplicates).
 */
import { Component } from "preact";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { SessionView, TurnSummaryView } from "../../../../view/view-types.js";
import { title } from "../format.js";
import { listen } from "../live.js";
import { liveState, type LiveState } from "../live-session.js";
import { settleScroll } from "../settle-scroll.js";
import { showEverything } from "../show-everything.js";
import { ApiError, type Source } from "../source.js";
import { CompareTurns } from "./compare-turns.js";
import { ErrorLine } from "./error-line.js";
import { LivePanel, NoticeLine } from "./live-panel.js";
import { StartSession } from "./start-session.js";
import { SearchBox } from "./search-box.js";
import { SessionHeader } from "./session-header.js";
import { Timeline } from "./timeline.js";
import { ReadingTools } from "./reading-tools.js";
import { TurnSection } from "./turn-section.js";
import { inRepo } from "../repo-base.js";
import { useFollowLive } from "../follow-live.js";
import { turnInAddress } from "../turn-address.js";

/**
 * Sections are drawn a chunk at a time, the first chunk at once and one more whenever the browser
 * is idle, so no task of the page's start blocks a click for long. Each chunk is its own memoized
 * component: drawing the next one leaves the ones drawn alone (re-rendering every drawn section
 * per batch made a 1,000-turn start quadratic).
 */
const CHUNK = 25;

export function SessionPage({ source, id, scrollTo = null }: { source: Source; id: string; scrollTo?: number | null }) {
  const [view, setView] = useState<SessionView | null>(null);
  const [error, setError] = useState<unknown>(null);
  /** Bumped per turn when the server says it changed: the section refetches. */
  const [versions, setVersions] = useState<Record<number, number>>({});
  /** Turns to draw now, whether or not they are near the screen (a search hit, a jump). */
  const [forced, setForced] = useState<Set<number>>(new Set());
  /** The session as this server drives it (prompt box, question); null: it drives it not. */
  const [live, setLive] = useState<LiveState | null>(null);
  // A fetched state is older than any event that came after the fetch was sent: it must not undo
  // one (a question asked while a fetch was on its way left the box saying claude works, QA/CI).
  const liveEvents = useRef(0);
  const refreshLive = useCallback(() => {
    const sent = liveEvents.current;
    const settle = (state: LiveState | null) => {
      if (liveEvents.current === sent) setLive(state);
    };
    liveState(id).then(settle, () => settle(null));
  }, [id]);
  /** What the reading tools hide, as classes of the turns' container. */
  const [shownClasses, setShownClasses] = useState("");
  /** Chunks of sections drawn so far: the first at once, the rest as the browser is idle. */
  const [drawn, setDrawn] = useState(1);
  const drawnNow = useRef(drawn);
  drawnNow.current = drawn;

  const load = useCallback(
    () =>
      source.session(id).then((v) => {
        setView(v);
        setError(null);
      }, setError),
    [source, id],
  );
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (view) document.title = `${title(view.session.firstPrompt)} · nudge`;
  }, [view?.session.firstPrompt]);
  useEffect(() => {
    if (source.static) return;
    const bump = (n: number) => setVersions((v) => ({ ...v, [n]: (v[n] ?? 0) + 1 }));
    return listen(inRepo(`/api/sessions/${encodeURIComponent(id)}/events`), {
      session: (data) => {
        void load();
        if (typeof data.pending === "number") bump(data.pending);
        if (typeof data.turns === "number") bump(data.turns);
      },
      turn: (data) => {
        if (typeof data.n === "number") bump(data.n);
      },
      reopen: () => void load(),
      live: (data) => {
        const state = data as unknown as LiveState;
        // A /fork or /compact goes on in another session: follow it there.
        liveEvents.current++;
        if (typeof state.sessionId === "string" && state.sessionId !== id && !state.ended)
          location.href = inRepo(`/s/${encodeURIComponent(state.sessionId)}`);
        else setLive(state);
      },
    });
  }, [source, id, load]);
  useEffect(() => {
    if (!source.static) refreshLive();
  }, [source, refreshLive]);

  const chunks = useMemo(() => chunked(view?.turns ?? [], CHUNK), [view?.turns]);
  useEffect(() => {
    if (drawn >= chunks.length) return;
    return whenIdle(() => setDrawn((d) => d + 1));
  }, [drawn, chunks.length]);
  const changed = useCallback(() => void load(), [load]);
  // End before every section is drawn: draw them all, then go to the last once they are (the
  // commit after setDrawn), staying there while the sections around it take their real height.
  const goingTo = useRef<number | "end" | null>(null);
  /** Stops the scroll to a turn still settling (Jump to live ends it). */
  const settling = useRef<() => void>(() => {});
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (
        e.key !== "End" ||
        e.defaultPrevented ||
        (e.target instanceof HTMLElement && e.target.closest("input, textarea, select, [contenteditable]"))
      )
        return;
      if (drawnNow.current >= chunks.length) return;
      goingTo.current = "end";
      setDrawn(Infinity);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [chunks.length]);
  useEffect(() => {
    const target = goingTo.current;
    if (target === null || drawn < chunks.length) return;
    goingTo.current = null;
    const stop = settleScroll(() =>
      target === "end"
        ? window.scrollTo({ top: document.documentElement.scrollHeight })
        : document.getElementById(`turn-${target}`)?.scrollIntoView({ block: "start" }),
    );
    settling.current = stop;
    return stop;
  }, [drawn, chunks.length, forced]);

  // Printing (Ctrl-P) prints what is drawn: every turn is drawn first, with its entries, its
  // whole diff and long lines (a static export has them at hand; a served page draws those it
  // has fetched — the rest follow, and a second print has them).
  useEffect(() => {
    const onPrint = () => {
      setDrawn(Infinity);
      setForced(new Set(view?.turns.map((t) => t.n) ?? []));
      showEverything();
    };
    window.addEventListener("beforeprint", onPrint);
    return () => window.removeEventListener("beforeprint", onPrint);
  }, [view?.turns]);

  const working =
    !source.static &&
    view !== null &&
    (view.session.state === "recording" || (live !== null && !live.ended && live.busy));
  const { following, jumpToLive, stopFollowing } = useFollowLive(working, scrollTo === null);
  // Going to a turn (the timeline, the outline, a permalink) is leaving the live end: following it
  // would pull the page back there as the turns grow.
  const jump = useCallback(
    (n: number) => {
      stopFollowing();
      goingTo.current = n;
      setDrawn(Infinity);
      setForced((f) => new Set([...f, n]));
    },
    [stopFollowing],
  );
  useEffect(() => {
    if (view && scrollTo !== null) jump(scrollTo);
  }, [view !== null]);
  // A link to another turn of this page (a heading's permalink, a typed #turn-N) goes there.
  useEffect(() => {
    const onHash = () => {
      const n = turnInAddress().turn;
      if (n !== null) jump(n);
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [jump]);

  // Started from the page and gone at once (claude refused to start: nothing was recorded): why.
  const refusal = live?.ended ? live.notices.filter((n) => n.level === "error") : [];
  if (error instanceof ApiError && error.status === 404 && refusal.length)
    return (
      <main class="session">
        <p>The session could not start, and nothing was kept:</p>
        <ul class="notices">
          {refusal.map((n) => (
            <NoticeLine key={n.n} notice={n} />
          ))}
        </ul>
        <p>
          <a href={inRepo("/")}>All sessions</a>
        </p>
      </main>
    );
  // Deleted while open (its own Delete, or `session rm`): one line, not an error in every turn.
  if (error instanceof ApiError && error.status === 404 && view)
    return (
      <main class="session">
        <p>
          Session <code>{view.session.id}</code> is no longer in this repository (deleted).{" "}
          <a href={inRepo("/")}>All sessions</a>
        </p>
      </main>
    );
  // A prefix of several sessions' ids: name them, as `session show` does, rather than call it a typo.
  const matches =
    !view && error instanceof ApiError && error.status === 404
      ? (error.body as { matches?: unknown } | null)?.matches
      : undefined;
  const several = Array.isArray(matches)
    ? matches.filter((m): m is string => typeof m === "string" && /^[0-9a-f]{1,40}$/.test(m))
    : [];
  if (several.length)
    return (
      <main class="session">
        <h1>Which session?</h1>
        <p>
          <code>{id}</code> begins the ids of several sessions:
        </p>
        <ul>
          {several.map((s) => (
            <li key={s}>
              <a href={inRepo(`/s/${s}${location.search}${location.hash}`)}>{s}</a>
            </li>
          ))}
        </ul>
      </main>
    );
  if (!view && error instanceof ApiError && error.status === 404)
    return (
      <main class="session">
        <h1>No such session</h1>
        <p>
          No session in this repository matches <code>{id}</code>: the address is mistyped, or the session was deleted.{" "}
          <a href={inRepo("/")}>All sessions</a>
        </p>
      </main>
    );
  if (!view) return <main class="session">{error ? <ErrorLine error={error} /> : <p class="muted">Loading…</p>}</main>;
  const turns: TurnSummaryView[] = view.turns;
  const pending = view.pending && !turns.some((t) => t.n === view.pending!.n) ? view.pending : null;
  const lockedWhy = recordingWhy(view.session.state, live);
  const badTurn = source.static ? null : turnInAddress().bad;
  const asked = scrollTo !== null && !turns.some((t) => t.n === scrollTo) && pending?.n !== scrollTo ? scrollTo : null;
  return (
    <main class="session">
      <SessionHeader source={source} view={view} onChanged={() => void load()} lockedWhy={lockedWhy} />
      <ErrorLine error={error} />
      {badTurn !== null ? (
        <p class="notice warn" role="status">
          “{badTurn}” is no turn number: this session's turns are{" "}
          {turns.length ? `${turns[0]!.n} to ${turns.at(-1)!.n}` : "none yet"}.
        </p>
      ) : null}
      {asked !== null ? (
        <p class="notice warn" role="status">
          This session has no turn {asked}: its turns are{" "}
          {turns.length ? `${turns[0]!.n} to ${turns.at(-1)!.n}` : "none yet"}.
        </p>
      ) : null}
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
      {turns.length > 1 ? <ReadingTools turns={turns} onPick={jump} onShown={setShownClasses} /> : null}
      {!source.static && turns.length > 1 ? (
        <CompareTurns source={source} id={view.session.id} turns={turns.map((t) => t.n)} />
      ) : null}
      <div id="turns" class={shownClasses}>
        {chunks.slice(0, drawn).map((chunk) => (
          <TurnChunk
            key={chunk[0]!.n}
            source={source}
            sessionId={view.session.id}
            turns={chunk}
            versions={versions}
            forced={forced}
            onChanged={changed}
            lockedWhy={lockedWhy}
          />
        ))}
        {pending ? (
          <TurnSection
            key={`p${pending.n}`}
            source={source}
            sessionId={view.session.id}
            summary={null}
            pendingN={pending.n}
            version={versions[pending.n] ?? 0}
            forced
            onChanged={changed}
          />
        ) : null}
      </div>
      {working && !following ? (
        <button
          type="button"
          class="jump-live"
          onClick={() => {
            settling.current();
            jumpToLive();
          }}
        >
          ↓ Jump to live
        </button>
      ) : null}
      {source.static ? null : (
        <Driving
          id={view.session.id}
          state={view.session.state}
          live={live}
          refreshLive={refreshLive}
          prompts={turns.flatMap((t) => (t.prompt ? [t.prompt] : [])).reverse()}
        />
      )}
    </main>
  );
}

/**
 * Why a rewind, fork or delete cannot be done from here now: the recorder holds the session, and
 * the server would refuse (409). Said before the click rather than after it.
 */
function recordingWhy(state: string, live: LiveState | null): string | null {
  if (state !== "recording") return null;
  if (live && !live.ended)
    return "This page drives the session: use /rewind or /fork in the prompt box, or End it first.";
  return "Another nudge is recording this session (a terminal or a loop): end it there first.";
}

interface ChunkProps {
  source: Source;
  sessionId: string;
  turns: TurnSummaryView[];
  versions: Record<number, number>;
  forced: Set<number>;
  onChanged: () => void;
  lockedWhy: string | null;
}

/** A run of turn sections, drawn again only when one of its own turns changed. */
class TurnChunk extends Component<ChunkProps> {
  override shouldComponentUpdate(next: ChunkProps): boolean {
    const now = this.props;
    if (
      now.source !== next.source ||
      now.sessionId !== next.sessionId ||
      now.turns !== next.turns ||
      now.onChanged !== next.onChanged ||
      now.lockedWhy !== next.lockedWhy
    )
      return true;
    return next.turns.some(
      (t) => (now.versions[t.n] ?? 0) !== (next.versions[t.n] ?? 0) || now.forced.has(t.n) !== next.forced.has(t.n),
    );
  }

  override render({ source, sessionId, turns, versions, forced, onChanged, lockedWhy }: ChunkProps) {
    return (
      <>
        {turns.map((t) => (
          <TurnSection
            key={t.n}
            source={source}
            sessionId={sessionId}
            summary={t}
            version={versions[t.n] ?? 0}
            forced={forced.has(t.n)}
            onChanged={onChanged}
            lockedWhy={lockedWhy}
          />
        ))}
      </>
    );
  }
}

function chunked<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Calls back when the browser is idle (at the latest after 200 ms); returns a cancel. */
function whenIdle(callback: () => void): () => void {
  if (typeof requestIdleCallback === "function") {
    const handle = requestIdleCallback(callback, { timeout: 200 });
    return () => cancelIdleCallback(handle);
  }
  const timer = setTimeout(callback, 0);
  return () => clearTimeout(timer);
}

/**
 * Below the turns: the prompt box of a session this server drives; Continue for one nobody
 * records; for one a terminal records, why there is no prompt box here.
 */
function Driving({
  id,
  state,
  live,
  refreshLive,
  prompts,
}: {
  id: string;
  state: string;
  live: LiveState | null;
  refreshLive: () => void;
  prompts: string[];
}) {
  // It went on in another session (a /rewind, /fork or /compact from the page): its prompts go there, not here (QA).
  if (live && !live.ended && typeof live.sessionId === "string" && live.sessionId !== id)
    return (
      <p class="muted driving-note">
        This session went on in{" "}
        <a href={inRepo(`/s/${encodeURIComponent(live.sessionId)}`)}>session {live.sessionId}</a> (a rewind, fork or
        compact): continue there. This one keeps its turns as they were.
      </p>
    );
  if (live && !live.ended) return <LivePanel id={id} state={live} prompts={prompts} />;
  if (state === "recording")
    return (
      <p class="muted driving-note">
        Being recorded by another nudge (a terminal, a loop): followed live here, read-only.
      </p>
    );
  return (
    <StartSession
      resume={id}
      onStarted={(started) => {
        // A rewound session goes on in a fork: follow it there.
        if (started !== id) location.href = inRepo(`/s/${encodeURIComponent(started)}`);
        else refreshLive();
      }}
    />
  );
}
