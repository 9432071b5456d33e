/** What the page says when the server has no such session (404), by why it may be so. */
import type { SessionView } from "../../../../view/view-types.js";
import type { LiveState } from "../live-session.js";
import { inRepo } from "../repo-base.js";
import type { ApiError } from "../source.js";
import { NoticeLine } from "./live-panel.js";

export function SessionNotFound({
  id,
  error,
  view,
  live,
}: {
  id: string;
  error: ApiError;
  view: SessionView | null;
  live: LiveState | null;
}) {
  // Started from the page and gone at once (claude refused to start: nothing was recorded): why.
  const refusal = live?.ended ? live.notices.filter((n) => n.level === "error") : [];
  if (refusal.length)
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
  if (view)
    return (
      <main class="session">
        <p>
          Session <code>{view.session.id}</code> is no longer in this repository (deleted).{" "}
          <a href={inRepo("/")}>All sessions</a>
        </p>
      </main>
    );
  // A prefix of several sessions' ids: name them, as `session show` does, rather than call it a typo.
  const matches = (error.body as { matches?: unknown } | null)?.matches;
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
  return (
    <main class="session">
      <h1>No such session</h1>
      <p>
        No session in this repository matches <code>{id}</code>: the address is mistyped, or the session was deleted.{" "}
        <a href={inRepo("/")}>All sessions</a>
      </p>
    </main>
  );
}
