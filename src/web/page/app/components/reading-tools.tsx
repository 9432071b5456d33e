/**
 * Tools for reading a long session: an outline of the turns to jump through, which kinds of entry
 * to show (or only the errors), and every tool call and thought opened or closed at once. Hiding
 * is by classes the page renders on the turns' container, so turns fetched later follow the same choice.
 */
import { useEffect, useState } from "preact/hooks";
import type { TurnSummaryView } from "../../../../view/view-types.js";
import { title } from "../format.js";
import { setDisclosure } from "../disclosure.js";

const KINDS = [
  { key: "prompt", label: "Prompts" },
  { key: "reply", label: "Replies" },
  { key: "tool", label: "Tools" },
  { key: "thinking", label: "Thinking" },
  { key: "diff", label: "Diffs" },
] as const;
type Kind = (typeof KINDS)[number]["key"];

/** `onShown`: the classes the turns' container takes for what is hidden (the page renders them on it). */
export function ReadingTools({
  turns,
  onPick,
  onShown,
}: {
  turns: TurnSummaryView[];
  onPick: (n: number) => void;
  onShown: (classes: string) => void;
}) {
  const [hidden, setHidden] = useState<Set<Kind>>(new Set());
  const [errorsOnly, setErrorsOnly] = useState(false);
  useEffect(
    () =>
      onShown(
        [
          ...KINDS.filter((k) => hidden.has(k.key)).map((k) => `hide-${k.key}`),
          ...(errorsOnly ? ["errors-only"] : []),
        ].join(" "),
      ),
    [hidden, errorsOnly],
  );
  const toggle = (k: Kind) =>
    setHidden((h) => (h.has(k) ? new Set([...h].filter((x) => x !== k)) : new Set([...h, k])));
  return (
    <div class="reading-tools">
      <details
        class="outline"
        onKeyDown={(e) => {
          // The open list is long: Escape folds it and leaves focus on its summary, where Tab had come in.
          const d = e.currentTarget;
          if (e.key !== "Escape" || !d.open) return;
          d.open = false;
          d.querySelector("summary")?.focus();
        }}
      >
        <summary>Outline: {turns.length} turns</summary>
        <nav aria-label="Outline of the turns">
          <ol>
            {turns.map((t) => (
              <li key={t.n}>
                <span class="outline-n">{t.n}.</span>{" "}
                <a
                  href={`#turn-${t.n}`}
                  onClick={(e) => {
                    // The hash changes (Back returns here); the jump draws the turn first if it is not yet.
                    e.preventDefault();
                    history.pushState(history.state, "", `#turn-${t.n}`);
                    onPick(t.n);
                  }}
                >
                  {t.n === 0 ? "the starting state" : title(t.prompt ?? "(no prompt)")}
                </a>
                {t.n > 0 && t.status !== "success" ? <span class="badge error">{t.status}</span> : null}
                {t.check && t.check.exitCode !== 0 ? <span class="badge error">check failed</span> : null}
              </li>
            ))}
          </ol>
        </nav>
      </details>
      <fieldset class="show-kinds">
        <legend>Show</legend>
        {KINDS.map((k) => (
          <label key={k.key}>
            <input type="checkbox" checked={!hidden.has(k.key)} disabled={errorsOnly} onChange={() => toggle(k.key)} />{" "}
            {k.label}
          </label>
        ))}
        <label>
          <input type="checkbox" checked={errorsOnly} onChange={() => setErrorsOnly((e) => !e)} /> Only errors
        </label>
      </fieldset>
      <span class="toggle" role="group" aria-label="Tool calls and thinking">
        <button type="button" onClick={() => setDisclosure(true)}>
          Expand all
        </button>
        <button type="button" onClick={() => setDisclosure(false)}>
          Collapse all
        </button>
      </span>
    </div>
  );
}
