/**
 * An action the CLI has (rewind, fork, export, rm), asked as the CLI asks: the server's plan first
 * (`{confirm: false}`), shown in a dialog with Confirm and Cancel; Confirm sends the plan's token
 * back, so what is applied is what was shown (a 409 brings a fresh plan). The CSRF token from the
 * page's meta tag goes with every request.
 *
 * For the keyboard: Tab stays inside (a modal), Escape closes it, and focus goes back to the
 * control that opened it; a plan that changes or removes work puts focus on Cancel, the safe choice.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, csrfToken, getJson } from "../source.js";
import { ErrorLine } from "./error-line.js";
import { inRepo } from "../repo-base.js";

export type Action =
  | { kind: "rewind" | "fork"; sessionId: string; turn: number; label: string }
  | { kind: "export" | "rm" | "undo"; sessionId: string; label: string }
  /** `sessionId` is claude's own session's id. */
  | { kind: "adopt"; sessionId: string; label: string };

interface Plan {
  plan: string[];
  question: string;
  confirmToken: string;
}
interface Done {
  done: string[];
  download?: string;
  /** The session the action made (an adoption). */
  session?: string;
}

type Step =
  | { at: "options" }
  | { at: "asking" }
  | { at: "plan"; plan: Plan; stale: boolean }
  | { at: "applying"; plan: Plan }
  | { at: "done"; done: Done }
  | { at: "failed"; error: unknown };

/** `onUndo`: after a rewind or an in-place fork is done, the dialog offers to undo it (the page opens the undo's own plan). */
export function ActionDialog({
  action,
  onClose,
  onUndo,
}: {
  action: Action;
  onClose: (changed: boolean) => void;
  onUndo?: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const safe = useRef<HTMLButtonElement>(null);
  const [step, setStep] = useState<Step>(action.kind === "fork" ? { at: "options" } : { at: "asking" });
  const [worktree, setWorktree] = useState("");
  const [taken, setTaken] = useState(false);

  const body = (extra: object) => {
    const base =
      action.kind === "rewind"
        ? { turn: action.turn }
        : action.kind === "fork"
          ? { turn: action.turn, worktree: worktree.trim() || null }
          : action.kind === "export"
            ? { upto: null }
            : {};
    return JSON.stringify({ ...base, ...extra });
  };
  const post = <T,>(extra: object) =>
    getJson<T>(
      inRepo(
        `/api/${action.kind === "adopt" ? "claude-sessions" : "sessions"}/${encodeURIComponent(action.sessionId)}/${action.kind}`,
      ),
      {
        method: "POST",
        headers: { "content-type": "application/json", "x-nudge-csrf": csrfToken() },
        body: body(extra),
      },
    );
  const ask = () => {
    setStep({ at: "asking" });
    post<Plan>({ confirm: false }).then(
      (plan) => setStep({ at: "plan", plan, stale: false }),
      (error: unknown) => setStep({ at: "failed", error }),
    );
  };
  const apply = (plan: Plan) => {
    setStep({ at: "applying", plan });
    post<Done>({ confirm: true, confirmToken: plan.confirmToken }).then(
      (done) => setStep({ at: "done", done }),
      (error: unknown) => {
        // The state changed since the plan was shown: the server sends the fresh one to ask again.
        const fresh = error instanceof ApiError && error.status === 409 ? (error.body as Partial<Plan> | null) : null;
        if (fresh?.plan && fresh.confirmToken) setStep({ at: "plan", plan: fresh as Plan, stale: true });
        else setStep({ at: "failed", error });
      },
    );
  };

  useEffect(() => {
    // The opener is what has focus now (the button clicked or pressed); it gets it back when the dialog goes.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const d = dialog.current;
    if (d && !d.open) d.showModal?.() ?? d.setAttribute("open", "");
    if (action.kind !== "fork") ask();
    return () => {
      // Closed first: while it is modal the rest of the page is inert and cannot take focus. Again a
      // moment later: the dialog's removal may still drop focus to the body after this runs.
      if (d?.open) d.close();
      const back = () => {
        if (opener?.isConnected && (document.activeElement ?? document.body) === document.body) opener.focus();
      };
      opener?.focus();
      setTimeout(back, 0);
    };
  }, []);
  // Each step's first focus: Cancel on a destructive plan, else the step's first control (or the dialog itself).
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (step.at === "plan" && DESTRUCTIVE.has(action.kind)) return safe.current?.focus();
    if (d.contains(document.activeElement) && document.activeElement !== d) return;
    (focusables(d)[0] ?? d).focus();
  }, [step.at]);

  const done = step.at === "done";
  return (
    <dialog
      ref={dialog}
      aria-label={action.label}
      tabIndex={-1}
      onCancel={(e) => {
        // The page closes it (by removing it), so focus can be put back where it was.
        e.preventDefault();
        onClose(done);
      }}
      onKeyDown={(e) => trapTab(e, dialog.current)}
    >
      <h2>{action.label}</h2>
      {step.at === "options" ? (
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault();
            ask();
          }}
        >
          <label>
            Worktree folder{" "}
            <input
              value={worktree}
              onInput={(e) => setWorktree(e.currentTarget.value)}
              placeholder="empty: fork in place"
            />
          </label>
          <div class="buttons">
            <button type="submit">Show the plan</button>
            <button type="button" onClick={() => onClose(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {step.at === "asking" || step.at === "applying" ? <p class="muted">Working…</p> : null}
      {step.at === "plan" ? (
        <>
          {step.stale ? <p class="notice warn">The session changed since; this is the new plan.</p> : null}
          <ul class="plan">
            {step.plan.plan.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
          <p>{step.plan.question}</p>
          <div class="buttons">
            <button type="button" class="danger" onClick={() => apply(step.plan)}>
              Confirm
            </button>
            <button type="button" ref={safe} onClick={() => onClose(false)}>
              Cancel
            </button>
          </div>
        </>
      ) : null}
      {done ? (
        <>
          <ul class="plan">
            {step.done.done.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
          {step.done.download && step.done.download.startsWith("/api/downloads/") ? (
            <p>
              {taken ? (
                // The server gives each export once: a second click would download its refusal as a file.
                <span class="muted">
                  Downloading: the server gives this export once; export again for another copy.
                </span>
              ) : (
                <a href={step.done.download} download="" onClick={() => setTimeout(() => setTaken(true), 0)}>
                  Download the export
                </a>
              )}
            </p>
          ) : null}
          {step.done.session ? (
            <p>
              <a href={inRepo(`/s/${encodeURIComponent(step.done.session)}`)}>Open nudge session {step.done.session}</a>
            </p>
          ) : null}
          <div class="buttons">
            <button type="button" onClick={() => onClose(true)}>
              Close
            </button>
            {onUndo && (action.kind === "rewind" || (action.kind === "fork" && !worktree.trim())) ? (
              <button type="button" onClick={onUndo}>
                Undo it
              </button>
            ) : null}
          </div>
        </>
      ) : null}
      {step.at === "failed" ? (
        <>
          <ErrorLine error={step.error} />
          <div class="buttons">
            <button type="button" onClick={() => onClose(false)}>
              Close
            </button>
          </div>
        </>
      ) : null}
    </dialog>
  );
}

/** Actions whose plan changes or removes work: their first focus is Cancel. */
const DESTRUCTIVE = new Set<Action["kind"]>(["rewind", "fork", "rm", "undo"]);

const focusables = (root: HTMLElement) =>
  [...root.querySelectorAll<HTMLElement>("button, a[href], input, select, textarea, summary, [tabindex]")].filter(
    (el) => el !== root && el.tabIndex >= 0 && !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0,
  );

/** Tab from the last control goes to the first, Shift+Tab from the first to the last: focus never leaves the modal. */
function trapTab(e: KeyboardEvent, root: HTMLElement | null): void {
  if (e.key !== "Tab" || !root) return;
  const all = focusables(root);
  if (!all.length) return e.preventDefault();
  const first = all[0]!;
  const last = all[all.length - 1]!;
  const at = document.activeElement;
  if (e.shiftKey && (at === first || at === root)) (e.preventDefault(), last.focus());
  else if (!e.shiftKey && (at === last || at === root)) (e.preventDefault(), first.focus());
}
