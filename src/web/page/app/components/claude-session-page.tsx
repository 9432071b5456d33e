/**
 * One of claude's own sessions (run without nudge), read-only: its header, the timeline, and its
 * turns drawn by the same turn list and entries as a recorded session's. There is no code to show
 * or rewind: the page says so, and how to make it a nudge session; once nudge holds it (adopted
 * here or elsewhere), it says which nudge session it is and links there instead.
 */
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { useClaudeSessionUpdates } from "../claude-session-updates.js";
import type { ClaudeSessionView } from "../../../../view/claude-web-views.js";
import { cost, duration, plural, title, when } from "../format.js";
import { inRepo } from "../repo-base.js";
import { ApiError, claudeSource, getJson } from "../source.js";
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
  const [adopted, setAdopted] = useState<Adopted | null>(null);
  const failed = useCallback((e: unknown) => {
    const held = heldBy(e);
    if (held) setAdopted(held);
    else setError(e);
  }, []);
  const { versions, known } = useClaudeSessionUpdates(id, setView, failed);
  useEffect(() => {
    getJson<ClaudeSessionView>(inRepo(`/api/claude-sessions/${encodeURIComponent(id)}`)).then((v) => {
      setView(v);
      known(v);
    }, failed);
  }, [id, known, failed]);
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
        {adopted ? (
          <>
            <h1>Adopted by nudge</h1>
            <AdoptedNote adopted={adopted} />
          </>
        ) : error ? (
          <ErrorLine error={error} />
        ) : (
          <p class="muted">Loading…</p>
        )}
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
        {adopted ? (
          <AdoptedNote adopted={adopted} />
        ) : (
          <>
            <p class="no-code" role="note">
              No code snapshots: recorded by claude, not nudge — adopt it to rewind or fork: <code>{view.adopt}</code>
            </p>
            <div class="actions">
              <button type="button" onClick={() => setAdopting(true)}>
                Adopt
              </button>
            </div>
          </>
        )}
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

/** claude's session as nudge holds it: its id, and the nudge sessions holding it. */
interface Adopted {
  claudeId: string;
  sessions: string[];
}

/** What the server's 404 (or 409) says of a claude id nudge holds, or null for any other failure. */
function heldBy(error: unknown): Adopted | null {
  if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 409)) return null;
  const body = error.body as { claudeId?: unknown; heldBy?: unknown } | null;
  const sessions = Array.isArray(body?.heldBy)
    ? body.heldBy.filter((s): s is string => typeof s === "string" && /^[0-9a-z]{8,32}$/.test(s))
    : [];
  return sessions.length && typeof body?.claudeId === "string" ? { claudeId: body.claudeId, sessions } : null;
}

function AdoptedNote({ adopted }: { adopted: Adopted }) {
  return (
    <p class="adopted" role="note">
      Adopted: claude's session <code>{adopted.claudeId}</code> is nudge's now — open it as nudge session{" "}
      {adopted.sessions.flatMap((s, i) => [
        i > 0 ? ", " : null,
        <a key={s} href={inRepo(`/s/${s}`)}>
          {s}
        </a>,
      ])}
      .
    </p>
  );
}
