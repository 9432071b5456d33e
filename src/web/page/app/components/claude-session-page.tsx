/**
 * One of claude's own sessions (run without nudge), read-only: its header, the timeline, and its
 * turns drawn by the same turn list and entries as a recorded session's. There is no code to show
 * or rewind: the page says so, and how to make it a nudge session.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { useClaudeSessionUpdates } from "../claude-session-updates.js";
import type { ClaudeSessionView } from "../../../../view/claude-web-views.js";
import { cost, duration, plural, title, when } from "../format.js";
import { inRepo } from "../repo-base.js";
import { claudeSource, getJson } from "../source.js";
import { useTurnDrawing } from "../turn-drawing.js";
import { useTurnJumps } from "../turn-jumps.js";
import { ActionDialog } from "./action-dialog.js";
import { ErrorLine } from "./error-line.js";
import { ReadingTools } from "./reading-tools.js";
import { Timeline } from "./timeline.js";
import { TurnList } from "./turn-list.js";

const noop = () => {};

export function ClaudeSessionPage({ id, scrollTo = null }: { id: string; scrollTo?: number | null }) {
  const source = useMemo(claudeSource, []);
  const [view, setView] = useState<ClaudeSessionView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [shownClasses, setShownClasses] = useState("");
  const [adopting, setAdopting] = useState(false);
  const { versions, known } = useClaudeSessionUpdates(id, setView, setError);
  useEffect(() => {
    getJson<ClaudeSessionView>(inRepo(`/api/claude-sessions/${encodeURIComponent(id)}`)).then((v) => {
      setView(v);
      known(v);
    }, setError);
  }, [id, known]);
  useEffect(() => {
    if (view) document.title = `${title(view.session.firstPrompt)} · claude's own · nudge`;
  }, [view]);
  const { chunks, drawn, forced, goTo } = useTurnDrawing(view?.turns);
  const jump = useTurnJumps(view !== null, scrollTo, goTo, noop);
  if (!view)
    return (
      <main class="session">
        <nav class="crumbs">
          <a href={inRepo("/")}>Sessions</a>
        </nav>
        {error ? <ErrorLine error={error} /> : <p class="muted">Loading…</p>}
      </main>
    );
  const s = view.session;
  return (
    <main class="session">
      <header class="session-header">
        <nav class="crumbs">
          <a href={inRepo("/")}>Sessions</a>
        </nav>
        <h1>{title(s.firstPrompt)}</h1>
        <p class="meta">
          <span class="badge">claude's own · read-only</span> <code>{s.id}</code> · branch {s.branch ?? "(unknown)"} ·
          started {when(s.startedAt)} · last used {when(s.updatedAt)}
        </p>
        <p class="meta">
          {s.turns === null ? "turns not counted (a large transcript)" : plural(s.turns, "turn")} · {cost(s.costUsd)} ·{" "}
          {duration(s.durationMs)}
          {s.cwd ? ` · in ${s.cwd}` : ""}
        </p>
        <p class="no-code" role="note">
          No code snapshots: recorded by claude, not nudge — adopt it to rewind or fork: <code>{view.adopt}</code>
        </p>
        <div class="actions">
          <button type="button" onClick={() => setAdopting(true)}>
            Adopt
          </button>
        </div>
        {adopting ? (
          <ActionDialog
            action={{ kind: "adopt", sessionId: s.id, label: "Adopt this session" }}
            onClose={(changed) => {
              setAdopting(false);
              // Adopted: it is nudge's now, no longer listed as claude's own.
              if (changed) location.href = inRepo("/");
            }}
          />
        ) : null}
        {view.cutAt !== null ? (
          <p class="muted">The transcript is {view.cutAt.toLocaleString("en")} bytes: only its first part is read.</p>
        ) : null}
      </header>
      <Timeline turns={view.turns} onPick={jump} sessionCostUsd={s.costUsd} />
      {view.turns.length > 1 ? <ReadingTools turns={view.turns} onPick={jump} onShown={setShownClasses} /> : null}
      <TurnList
        source={source}
        sessionId={s.id}
        chunks={chunks}
        drawn={drawn}
        pendingN={null}
        versions={versions}
        forced={forced}
        onChanged={noop}
        lockedWhy={null}
        shownClasses={shownClasses}
      />
    </main>
  );
}
