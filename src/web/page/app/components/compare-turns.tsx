/**
 * Two turn numbers and the code change between them (`session diff --from A --to B`). Number
 * fields, not lists: two lists of a 1,000-turn session's turns were 2,000 elements drawn at the
 * page's start, and a long list is slower to pick from than a number is to type. What is typed
 * stays as typed; Compare (or Enter) checks it and says what is wrong, never swapping in numbers.
 */
import { useState } from "preact/hooks";
import type { DiffView } from "../../../../view/view-types.js";
import type { Source } from "../source.js";
import { DiffViewer } from "./diff-viewer.js";
import { ErrorLine } from "./error-line.js";

export function CompareTurns({ source, id, turns }: { source: Source; id: string; turns: number[] }) {
  const first = turns[0] ?? 0;
  const last = turns.at(-1) ?? 0;
  const [from, setFrom] = useState(String(first));
  const [to, setTo] = useState(String(last));
  const [diff, setDiff] = useState<{ from: number; to: number; view: DiffView } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const turnOf = (text: string, name: string): number | string => {
    const n = Number(text.trim());
    if (text.trim() === "" || !Number.isInteger(n)) return `${name} must be a turn number`;
    if (n < first || n > last) return `${name} turn ${n} is not in this session (turns ${first} to ${last})`;
    return n;
  };
  const compare = (e: Event) => {
    e.preventDefault();
    setError(null);
    setDiff(null);
    const a = turnOf(from, "the first");
    const b = turnOf(to, "the second");
    const wrong =
      typeof a === "string"
        ? a
        : typeof b === "string"
          ? b
          : a >= b
            ? `the first turn must come before the second (${a} is not before ${b})`
            : null;
    setProblem(wrong);
    if (wrong || typeof a !== "number" || typeof b !== "number") return;
    source.diff(id, a, b).then((view) => setDiff({ from: a, to: b, view }), setError);
  };
  const field = (label: string, value: string, set: (v: string) => void) => (
    <label>
      {label}{" "}
      <input type="number" min={first} max={last} step={1} value={value} onInput={(e) => set(e.currentTarget.value)} />
    </label>
  );
  return (
    <section class="compare" aria-label="Compare turns">
      <h2>Compare turns</h2>
      <form class="row compare-form" noValidate onSubmit={compare}>
        {field("From turn", from, setFrom)}
        {field("to turn", to, setTo)}
        <button type="submit">Compare</button>
      </form>
      {problem ? (
        <p class="error" role="alert">
          {problem}
        </p>
      ) : null}
      <ErrorLine error={error} />
      {diff ? <DiffViewer diff={diff.view} label={`Changes from turn ${diff.from} to turn ${diff.to}`} /> : null}
    </section>
  );
}
