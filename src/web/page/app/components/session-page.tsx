/**
 * A session's page: its header, the timeline, a turn comparison, and one section per turn. The
 * turn list is drawn at once from the SessionView; a turn's entries are fetched and drawn when it
 * comes near the screen, so a 1,000-turn session is usable at once. Live: the server's events say
 * which turn grew, and that turn is fetched and replaced whole (never appended to: no duplicates).
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { useFollowLive } from "../follow-live.js";
import { startedHere } from "../live-session.js";
import { useLiveUpdates } from "../live-updates.js";
import { useSessionView } from "../session-view.js";
import { ApiError, type Source } from "../source.js";
import { turnInAddress } from "../turn-address.js";
import { useTurnDrawing } from "../turn-drawing.js";
import { useTurnJumps } from "../turn-jumps.js";
import { CompareTurns } from "./compare-turns.js";
import { Driving, recordingWhy } from "./driving.js";
import { ErrorLine } from "./error-line.js";
import { MissingTurnNotice } from "./missing-turn-notice.js";
import { ReadingTools } from "./reading-tools.js";
import { SearchBox } from "./search-box.js";
import { SessionHeader } from "./session-header.js";
import { SessionNotFound } from "./session-not-found.js";
import { Timeline } from "./timeline.js";
import { TurnList } from "./turn-list.js";

export function SessionPage({ source, id, scrollTo = null }: { source: Source; id: string; scrollTo?: number | null }) {
  const { view, error, load } = useSessionView(source, id);
  const gone = error instanceof ApiError && error.status === 404;
  const { versions, live, refreshLive } = useLiveUpdates(source, id, load, view !== null && !gone);
  // Not there (at the first ask, or gone since: the stream is closed then): its live state once,
  // only if this tab started it — why claude refused to start.
  useEffect(() => {
    if (gone && !source.static && startedHere(id)) refreshLive();
  }, [gone, source, id, refreshLive]);
  /** What the reading tools hide, as classes of the turns' container. */
  const [shownClasses, setShownClasses] = useState("");
  const { chunks, drawn, forced, goTo, drawAll, stopSettling } = useTurnDrawing(view?.turns);
  const changed = useCallback(() => void load(), [load]);
  const working =
    !source.static &&
    view !== null &&
    (view.session.state === "recording" || (live !== null && !live.ended && live.busy));
  const { following, jumpToLive, stopFollowing } = useFollowLive(working, scrollTo === null);
  const jump = useTurnJumps(view !== null, scrollTo, goTo, stopFollowing);

  if (gone) return <SessionNotFound id={id} error={error} view={view} live={live} />;
  if (!view) return <main class="session">{error ? <ErrorLine error={error} /> : <p class="muted">Loading…</p>}</main>;
  const turns = view.turns;
  const pending = view.pending && !turns.some((t) => t.n === view.pending!.n) ? view.pending : null;
  const lockedWhy = recordingWhy(view.session.state, live);
  const badTurn = source.static ? null : turnInAddress().bad;
  const asked = scrollTo !== null && !turns.some((t) => t.n === scrollTo) && pending?.n !== scrollTo ? scrollTo : null;
  return (
    <main class="session">
      <SessionHeader source={source} view={view} onChanged={() => void load()} lockedWhy={lockedWhy} />
      <ErrorLine error={error} />
      <MissingTurnNotice badTurn={badTurn} asked={asked} turns={turns} />
      {source.static ? <SearchBox onSearch={drawAll} /> : null}
      <Timeline turns={turns} onPick={jump} />
      {turns.length > 1 ? <ReadingTools turns={turns} onPick={jump} onShown={setShownClasses} /> : null}
      {!source.static && turns.length > 1 ? (
        <CompareTurns source={source} id={view.session.id} turns={turns.map((t) => t.n)} />
      ) : null}
      <TurnList
        source={source}
        sessionId={view.session.id}
        chunks={chunks}
        drawn={drawn}
        pendingN={pending ? pending.n : null}
        versions={versions}
        forced={forced}
        onChanged={changed}
        lockedWhy={lockedWhy}
        shownClasses={shownClasses}
      />
      {working && !following ? (
        <button
          type="button"
          class="jump-live"
          onClick={() => {
            stopSettling();
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
