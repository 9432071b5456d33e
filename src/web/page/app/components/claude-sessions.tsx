/**
 * claude's own sessions (run without nudge, so read-only here): this repository's under the
 * recorded ones, or one project's on its own page. Fetched after the page's first paint, from
 * nudge's cached cards of claude's transcripts; each links to its conversation.
 */
import { useEffect, useState } from "preact/hooks";
import type { ClaudeListItem } from "../../../../view/claude-web-views.js";
import { cost, title, when } from "../format.js";
import { inRepo } from "../repo-base.js";
import { ApiError, getJson } from "../source.js";
import { onConnection } from "../live.js";
import { ErrorLine } from "./error-line.js";

interface ClaudeList {
  /** `served`: this server's page of the repository it is in (null: none); `exists`: its folder is still there. */
  project: { folder: string; cwd: string | null; exists: boolean; served: string | null } | null;
  total: number;
  sessions: ClaudeListItem[];
}

/**
 * The list from the server: this repository's, or `project`'s (a folder claude keeps); `all` asks
 * for up to 1,000. Asked again when `changes` moves (the server's `claude-sessions` event).
 */
function useClaudeList(
  project: string | null,
  changes = 0,
): {
  list: ClaudeList | null;
  error: unknown;
  showAll: () => void;
} {
  const [list, setList] = useState<ClaudeList | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [all, setAll] = useState(false);
  // Asked again once the server answers again: a list that failed while it was down is not left on show.
  const [tries, setTries] = useState(0);
  useEffect(() => {
    const q = new URLSearchParams();
    if (project !== null) q.set("project", project);
    if (all) q.set("limit", "1000");
    getJson<ClaudeList>(inRepo(`/api/claude-sessions${q.size ? `?${q}` : ""}`)).then((l) => {
      setList(l);
      setError(null);
    }, setError);
  }, [project, all, tries, changes]);
  useEffect(() => {
    if (!(error instanceof ApiError && error.status === 0)) return;
    let down = false;
    return onConnection((c) => {
      if (c !== "open") down = true;
      else if (down) setTries((n) => n + 1);
    });
  }, [error]);
  return { list, error, showAll: () => setAll(true) };
}

function ClaudeSessionsTable({ list, showAll }: { list: ClaudeList; showAll: () => void }) {
  return (
    <>
      <table class="claude-sessions">
        <thead>
          <tr>
            <th>Session</th>
            <th>Started</th>
            <th>Last used</th>
            <th>Turns</th>
            <th>Cost</th>
          </tr>
        </thead>
        <tbody>
          {list.sessions.map((s) => (
            <tr key={s.id}>
              <td>
                <a href={inRepo(`/c/${encodeURIComponent(s.id)}`)}>{title(s.firstPrompt)}</a>{" "}
                <span class="badge">claude's own</span>
                <div class="muted small">
                  {s.id}
                  {s.branch ? ` · ${s.branch}` : ""}
                  <span class="narrow-only"> · last used {when(s.updatedAt)}</span>
                </div>
              </td>
              <td>{when(s.startedAt)}</td>
              <td>{when(s.updatedAt)}</td>
              <td class="num">{s.turns ?? "?"}</td>
              <td class="num">{cost(s.costUsd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.total > list.sessions.length ? (
        <p class="muted">
          {list.sessions.length} of {list.total.toLocaleString("en")} shown, the ones used last.{" "}
          {list.sessions.length < 1000 ? (
            <button type="button" onClick={showAll}>
              Show more
            </button>
          ) : null}
        </p>
      ) : null}
    </>
  );
}

/** Under the sessions page's table: this repository's sessions claude kept that nudge did not record; `changes`: see useClaudeList. */
export function ClaudeOwnSection({ changes }: { changes: number }) {
  const { list, error, showAll } = useClaudeList(null, changes);
  if (!error && (!list || list.total === 0)) return null;
  return (
    <section class="claude-own" aria-label="claude's own sessions">
      <h2>claude's own sessions</h2>
      <p class="muted">
        Run with claude alone in this repository, not recorded by nudge: their conversations are here to read; they have
        no code snapshots. Adopt one to rewind or fork it: <code>nudge session adopt &lt;id&gt;</code>.
      </p>
      <ErrorLine error={error} />
      {list ? <ClaudeSessionsTable list={list} showAll={showAll} /> : null}
    </section>
  );
}

/** How to record, rewind or fork there: its sessions page when served here; nothing to run when its folder is gone. */
function ProjectHint({ project }: { project: NonNullable<ClaudeList["project"]> }) {
  if (!project.exists) return <> Its folder no longer exists: nothing can be recorded there.</>;
  if (project.served)
    return (
      <>
        {" "}
        To record, rewind or fork there: <a href={project.served}>its sessions page</a> on this server.
      </>
    );
  return (
    <>
      {" "}
      To record, rewind or fork there: <code>nudge web --repo {project.cwd}</code>
    </>
  );
}

/** /projects/<folder>: one project's sessions claude kept, read-only (the way to them from All projects). */
export function ProjectSessionsPage({ folder }: { folder: string }) {
  const { list, error, showAll } = useClaudeList(folder);
  useEffect(() => {
    document.title = "claude's sessions of a project · nudge";
  }, []);
  return (
    <main class="sessions">
      <nav class="crumbs">
        <a href={inRepo("/")}>Sessions</a> · <a href={inRepo("/projects")}>All projects</a>
      </nav>
      <h1>{list?.project?.cwd ?? folder}</h1>
      <p class="muted">
        claude's own sessions of this project, read-only: their conversations, no code snapshots.
        {list?.project?.cwd ? <ProjectHint project={list.project} /> : null}
      </p>
      <ErrorLine error={error} />
      {list === null && !error ? <p class="muted">Loading…</p> : null}
      {list ? <ClaudeSessionsTable list={list} showAll={showAll} /> : null}
      {list && list.total === 0 ? (
        <p class="muted">No session of claude's own here (or nudge holds them all).</p>
      ) : null}
    </main>
  );
}
