/**
 * The page of `nudge web` and of `session export --html`. It reads its route from the address
 * (/ the sessions, /s/<id> a session) or, in a static export, everything from the data element.
 * Every string it shows came from a session and is rendered as text; only sanitized markdown and
 * highlighter output are set as HTML.
 */
import "./page.css";
import { render } from "preact";
import { ConnectionBanner } from "./components/connection-banner.js";
import { SessionPage } from "./components/session-page.js";
import { SessionsPage } from "./components/sessions-page.js";
import { ProjectsPage } from "./components/projects-page.js";
import { ClaudeSessionPage } from "./components/claude-session-page.js";
import { ProjectSessionsPage } from "./components/claude-sessions.js";
import { repoPath } from "./repo-base.js";
import { turnInAddress } from "./turn-address.js";
import { readStaticData, serverSource, staticSource } from "./source.js";

function start(): void {
  const root = document.getElementById("app");
  if (!root) return;
  const data = readStaticData();
  if (data) {
    render(<SessionPage source={staticSource(data)} id={data.session.session.id} />, root);
    return;
  }
  const source = serverSource();
  const match = /^\/s\/([^/]+)\/?$/.exec(repoPath());
  const claude = /^\/c\/([^/]+)\/?$/.exec(repoPath());
  const project = /^\/projects\/([^/]+)\/?$/.exec(repoPath());
  const turn = turnInAddress().turn;
  render(
    <>
      <ConnectionBanner />
      {match ? (
        <SessionPage source={source} id={decodeURIComponent(match[1]!)} scrollTo={turn} />
      ) : claude ? (
        <ClaudeSessionPage id={decodeURIComponent(claude[1]!)} scrollTo={turn} />
      ) : project ? (
        <ProjectSessionsPage folder={decodeURIComponent(project[1]!)} />
      ) : repoPath() === "/projects" ? (
        <ProjectsPage />
      ) : (
        <SessionsPage source={source} />
      )}
    </>,
    root,
  );
}

start();
