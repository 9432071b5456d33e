/**
 * A served session's live updates: the server's events say which turn grew (its version is bumped,
 * so its section refetches), that the session changed (it is loaded again), and how this server
 * drives it (the prompt box, a question). Nothing is asked until `known`: an id the server has
 * no session for is said once by the page, not asked again by every stream (each a failed request).
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { listen } from "./live.js";
import { liveState, type LiveState } from "./live-session.js";
import { inRepo } from "./repo-base.js";
import type { Source } from "./source.js";

export function useLiveUpdates(
  source: Source,
  id: string,
  load: () => Promise<void>,
  known: boolean,
): { versions: Record<number, number>; live: LiveState | null; refreshLive: () => void } {
  /** Bumped per turn when the server says it changed: the section refetches. */
  const [versions, setVersions] = useState<Record<number, number>>({});
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
  useEffect(() => {
    if (source.static || !known) return;
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
      gone: () => void load(),
      live: (data) => {
        const state = data as unknown as LiveState;
        // A /fork or /compact goes on in another session: follow it there.
        liveEvents.current++;
        if (typeof state.sessionId === "string" && state.sessionId !== id && !state.ended)
          location.href = inRepo(`/s/${encodeURIComponent(state.sessionId)}`);
        else setLive(state);
      },
    });
  }, [source, id, load, known]);
  useEffect(() => {
    if (!source.static && known) refreshLive();
  }, [source, refreshLive, known]);
  return { versions, live, refreshLive };
}
