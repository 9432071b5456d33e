/**
 * One turn: its line of numbers, its actions, and (fetched when it nears the screen) its entries,
 * the user's edits before it and its diff. A newer version (a live event) refetches it whole.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { TurnSummaryView, TurnView } from "../../../../view/view-types.js";
import { changes, cost, duration } from "../format.js";
import type { Source } from "../source.js";
import { ActionDialog, type Action } from "./action-dialog.js";
import { DiffViewer } from "./diff-viewer.js";
import { Entries } from "./entries.js";
import { ErrorLine } from "./error-line.js";
import { whenNear } from "../near-screen.js";
import { WholeLink, wholeHref } from "../whole-link.js";

interface Props {
  source: Source;
  sessionId: string;
  /** null for the turn in flight, known by `pendingN` until its view comes. */
  summary: TurnSummaryView | null;
  pendingN?: number;
  version: number;
  forced: boolean;
  onChanged: () => void;
  /** Why Rewind and Fork cannot be done now (the session is being recorded), or null. */
  lockedWhy?: string | null;
}

export function TurnSection({
  source,
  sessionId,
  summary,
  pendingN,
  version,
  forced,
  onChanged,
  lockedWhy = null,
}: Props) {
  const n = summary?.n ?? pendingN ?? 0;
  const ref = useRef<HTMLElement>(null);
  const [near, setNear] = useState(false);
  const [view, setView] = useState<TurnView | null>(null);
  const [full, setFull] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [action, setAction] = useState<Action | null>(null);

  useEffect(() => {
    const element = ref.current;
    if (!element || near) return;
    return whenNear(element, () => setNear(true));
  }, [near]);

  // A turn the server said changed is fetched wherever it is: a live session's new and interrupted
  // turns must show without the user scrolling to them.
  const wanted = near || forced || version > 0;
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    source.turn(sessionId, n, full).then(
      (v) => live && (setView(v), setError(null)),
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [wanted, version, full, sessionId, n]);

  const s = view?.summary ?? summary;
  const pending = summary === null;
  return (
    <section class={`turn${pending ? " pending" : ""}`} id={`turn-${n}`} ref={ref} aria-labelledby={`turn-${n}-title`}>
      <h2>
        {/* The region is named by the words alone, not by the permalink beside them. */}
        <span id={`turn-${n}-title`}>{n === 0 ? "Turn 0" : `Turn ${n}`}</span>
        {source.static ? null : (
          <a class="permalink" href={`#turn-${n}`} aria-label={`Link to turn ${n}`} title="Link to this turn">
            #
          </a>
        )}
      </h2>
      <p class="turn-meta">
        {source.codeless && s ? (
          // claude's own session: its conversation, no code to count.
          <>
            <span class={`status status-${s.status}`}>{s.status}</span> · {duration(s.durationMs)}
          </>
        ) : n === 0 ? (
          // Turn 0 is no exchange with claude: no status, cost, time or tokens to show.
          `the starting state: uncommitted work when the session began · ${s ? changes(s) : "loading…"}`
        ) : s ? (
          <>
            <span class={`status status-${s.status}`}>{s.status}</span> · {cost(s.costUsd)} · {duration(s.durationMs)}
            {s.tokens
              ? ` · ${s.tokens.input + s.tokens.cacheRead + s.tokens.cacheWrite} in / ${s.tokens.output} out tokens`
              : ""}{" "}
            · {changes(s)}
            {s.edits ? ` · your edits before: ${changes(s.edits)}` : ""}
            {s.compaction
              ? ` · compacted ${s.compaction.preTokens ?? "?"} → ${s.compaction.postTokens ?? "?"} tokens`
              : ""}
          </>
        ) : (
          "loading…"
        )}
      </p>
      {s?.sharedWith.length ? (
        <p class="shared-tree">
          shared work tree: {s.sharedWith.join(", ")} also had a turn running here during this one, so these changes may
          include theirs (a rewind keeps those files unless asked to include them)
        </p>
      ) : null}
      {s?.check ? (
        <p class={`check ${s.check.exitCode === 0 ? "passed" : "failed"}`}>
          {s.check.exitCode === 0 ? "✓" : "✗"} check <code>{s.check.command}</code>: exit {s.check.exitCode ?? "?"} ·{" "}
          {duration(s.check.durationMs)}
          {s.check.tail ? <pre>{s.check.tail}</pre> : null}
        </p>
      ) : null}
      {s?.loop ? <LoopLine loop={s.loop} /> : null}
      {source.static || source.codeless || pending ? null : (
        <div class="actions">
          <button
            type="button"
            disabled={lockedWhy !== null}
            title={lockedWhy ?? undefined}
            onClick={() => setAction({ kind: "rewind", sessionId, turn: n, label: `Rewind to turn ${n}` })}
          >
            Rewind to turn {n}
          </button>
          <button
            type="button"
            disabled={lockedWhy !== null}
            title={lockedWhy ?? undefined}
            onClick={() => setAction({ kind: "fork", sessionId, turn: n, label: `Fork at turn ${n}` })}
          >
            Fork at turn {n}
          </button>
        </div>
      )}
      <ErrorLine error={error} />
      {view ? (
        <>
          {view.edits && view.edits.files.length ? (
            <DiffViewer diff={view.edits} label={`Your edits before turn ${n}`} />
          ) : null}
          <WholeLink.Provider value={source.static || source.codeless ? null : wholeHref(sessionId)}>
            <Entries
              entries={view.entries}
              onShowAll={source.static || full ? null : () => setFull(true)}
              inFlight={pending}
            />
          </WholeLink.Provider>
          {!source.codeless && (view.diff.files.length || !pending) ? (
            <DiffViewer
              diff={view.diff}
              label={`Diff of turn ${n}`}
              heading="Diff"
              onShowAll={source.static || full ? null : () => setFull(true)}
            />
          ) : null}
        </>
      ) : wanted && !error ? (
        <p class="muted">Loading…</p>
      ) : null}
      {action ? (
        <ActionDialog
          key={action.kind}
          action={action}
          onClose={(changed) => {
            setAction(null);
            if (changed) onChanged();
          }}
          onUndo={() => {
            onChanged();
            setAction({ kind: "undo", sessionId, label: "Undo the rewind" });
          }}
        />
      ) : null}
    </section>
  );
}

/** A loop turn: "iteration 2 · fresh · claude-haiku-5-5 · promised COMPLETE", or a verifier's verdict. */
function LoopLine({ loop }: { loop: NonNullable<TurnSummaryView["loop"]> }) {
  const model = loop.model ?? "default model";
  if (loop.role === "verifier") {
    const v = loop.verdict;
    return (
      <p class={`loop verifier ${v?.pass ? "passed" : "failed"}`}>
        verifier of iteration {loop.iteration} · {model} · {v?.pass ? "✓ pass" : `✗ ${v?.reason ?? "no verdict"}`}
      </p>
    );
  }
  return (
    <p class="loop">
      iteration {loop.iteration}
      {loop.fresh ? " · fresh" : ""} · {model}
      {loop.promise ? ` · promised ${loop.promise}` : ""}
    </p>
  );
}
