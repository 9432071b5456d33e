/** What the session is: title, state, where it came from and went, its totals, and its actions. */
import { useState } from "preact/hooks";
import type { SessionView } from "../../../../view/view-types.js";
import { cost, duration, plural, title, when } from "../format.js";
import type { Source } from "../source.js";
import { ActionDialog, type Action } from "./action-dialog.js";
import { inRepo } from "../repo-base.js";

export function SessionHeader({
  source,
  view,
  onChanged,
  lockedWhy = null,
}: {
  source: Source;
  view: SessionView;
  onChanged: () => void;
  lockedWhy?: string | null;
}) {
  const s = view.session;
  const [action, setAction] = useState<Action | null>(null);
  const link = (id: string, turn?: number) =>
    source.static ? (
      <code>{id}</code>
    ) : (
      <a href={inRepo(`/s/${encodeURIComponent(id)}${turn === undefined ? "" : `?turn=${turn}`}`)}>{id}</a>
    );
  return (
    <header class="session-header">
      {source.static ? null : (
        <nav class="crumbs">
          <a href={inRepo("/")}>Sessions</a>
        </nav>
      )}
      <h1>{title(s.firstPrompt)}</h1>
      <p class="meta">
        <span class={`state state-${s.state}`}>{s.state}</span> <code>{s.id}</code> · branch {s.branch ?? "(detached)"}{" "}
        · started {when(s.startedAt)} · last used {when(s.updatedAt)}
      </p>
      <p class="meta">
        {plural(s.turns, "turn")} · {cost(s.costUsd)} · {duration(s.durationMs)}
      </p>
      {s.parent ? (
        <p class="meta">
          Fork of {link(s.parent.id, s.parent.turn)} at turn {s.parent.turn}
        </p>
      ) : null}
      {s.children.length ? (
        <p class="meta">
          Forks:{" "}
          {s.children.map((c, i) => (
            <span key={c}>
              {i ? ", " : ""}
              {link(c)}
            </span>
          ))}
        </p>
      ) : null}
      {s.origin ? (
        <p class="meta">
          Imported: exported by {s.origin.exportedBy ?? "(unknown)"} from {s.origin.root} on {when(s.origin.exportedAt)}{" "}
          (session {s.origin.sourceId} there)
        </p>
      ) : null}
      {s.rewoundTo !== null ? (
        <p class="meta">
          Rewound to turn {s.rewoundTo}: the next run continues from there in a fork. Undo the rewind puts the files
          back as they were before it.
        </p>
      ) : null}
      {source.static ? null : (
        <div class="actions">
          <button type="button" onClick={() => setAction({ kind: "export", sessionId: s.id, label: "Export" })}>
            Export
          </button>
          <button
            type="button"
            class="danger"
            disabled={lockedWhy !== null}
            title={lockedWhy ?? undefined}
            onClick={() => setAction({ kind: "rm", sessionId: s.id, label: "Delete session" })}
          >
            Delete session
          </button>
          {s.rewoundTo !== null ? (
            <button
              type="button"
              disabled={lockedWhy !== null}
              title={lockedWhy ?? undefined}
              onClick={() => setAction({ kind: "undo", sessionId: s.id, label: "Undo the rewind" })}
            >
              Undo the rewind
            </button>
          ) : null}
          {lockedWhy ? <span class="muted why-not">Rewind, fork and delete wait: {lockedWhy}</span> : null}
        </div>
      )}
      {action ? (
        <ActionDialog
          action={action}
          onClose={(changed) => {
            setAction(null);
            if (changed && action.kind === "rm") location.href = inRepo("/");
            else if (changed) onChanged();
          }}
        />
      ) : null}
    </header>
  );
}
