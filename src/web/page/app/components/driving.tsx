/**
 * Below the turns: the prompt box of a session this server drives; Continue for one nobody
 * records; for one a terminal records, why there is no prompt box here.
 */
import type { LiveState } from "../live-session.js";
import { inRepo } from "../repo-base.js";
import { LivePanel } from "./live-panel.js";
import { StartSession } from "./start-session.js";

export function Driving({
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

/**
 * Why a rewind, fork or delete cannot be done from here now: the recorder holds the session, and
 * the server would refuse (409). Said before the click rather than after it.
 */
export function recordingWhy(state: string, live: LiveState | null): string | null {
  if (state !== "recording") return null;
  if (live && !live.ended)
    return "This page drives the session: use /rewind or /fork in the prompt box, or End it first.";
  return "Another nudge is recording this session (a terminal or a loop): end it there first.";
}
