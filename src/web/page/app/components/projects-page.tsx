/**
 * Every project claude kept sessions for on this machine, newest first: its folder, how many
 * sessions and how much transcript, when it was last used, whether the folder is still there, and
 * the way to its sessions page (served here, or the `nudge web --repo` that serves it).
 */
import { useEffect, useState } from "preact/hooks";
import { cost, when } from "../format.js";
import { getJson } from "../source.js";
import { inRepo } from "../repo-base.js";
import { ErrorLine } from "./error-line.js";
import type { ClaudeProject } from "../../../../claude/claude-projects.js";

/** A project as the server lists it: claude's folder read (src/claude/claude-projects.ts), and where this server serves it. */
type Project = ClaudeProject & { served: string | null; costUsd: number };

const size = (bytes: number) =>
  bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function ProjectsPage() {
  const [answer, setAnswer] = useState<{ configDir: string; more: number; projects: Project[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    document.title = "claude's projects · nudge";
    getJson<{ configDir: string; more: number; projects: Project[] }>(inRepo("/api/projects")).then(
      setAnswer,
      setError,
    );
  }, []);
  return (
    <main class="sessions projects">
      <nav class="crumbs">
        <a href={inRepo("/")}>Sessions</a>
      </nav>
      <h1>All projects</h1>
      <ErrorLine error={error} />
      {answer === null && !error ? <p class="muted">Loading…</p> : null}
      {answer ? (
        <>
          <p class="muted">
            Every folder claude kept sessions for on this machine ({answer.configDir}/projects), with or without nudge.
            {answer.more ? ` ${answer.more} more folders are not listed.` : ""}
          </p>
          <table>
            <thead>
              <tr>
                <th>Project</th>
                <th>Sessions</th>
                <th>Last used</th>
                <th>Cost</th>
                <th>Transcripts</th>
              </tr>
            </thead>
            <tbody>
              {answer.projects.map((p) => (
                <tr key={p.folder}>
                  <td>
                    {p.served ? <a href={p.served}>{p.cwd}</a> : <span>{p.cwd ?? p.folder}</span>}
                    {(p.cwds ?? [])
                      .filter((c) => c !== p.cwd)
                      .map((c) => (
                        <span key={c}>, {c}</span>
                      ))}
                    <div class="muted small">
                      {!p.cwd ? (
                        "no transcript says where it ran"
                      ) : !p.exists ? (
                        <span class="badge error">folder no longer exists</span>
                      ) : !p.inGit ? (
                        "not a git repository"
                      ) : p.served ? (
                        p.served === "/" ? (
                          "this repository"
                        ) : (
                          "served here"
                        )
                      ) : (
                        <code>nudge web --repo {p.cwd}</code>
                      )}
                    </div>
                  </td>
                  <td class="num">
                    <a
                      href={inRepo(`/projects/${encodeURIComponent(p.folder)}`)}
                      title="claude's sessions of this project, read-only"
                    >
                      {p.sessions}
                    </a>
                  </td>
                  <td>{p.lastActivity ? when(p.lastActivity) : "–"}</td>
                  <td class="num">{cost(p.costUsd)}</td>
                  <td class="num">{size(p.bytes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {answer.projects.length === 0 ? <p class="muted">Claude has kept no sessions here yet.</p> : null}
        </>
      ) : null}
    </main>
  );
}
