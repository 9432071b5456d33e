/**
 * Two turn numbers and the code change between them (`session diff --from A --to B`). Number
 * fields, not lists: two lists of a 1,000-turn session's turns were 2,000 elements drawn at the
 * page's start, and a long list is slower to pick from than a number is to type.
 */
import { useState } from "preact/hooks";
import type { DiffView } from "../../../../view/view-types.js";
import type { Source } from "../source.js";
import { DiffViewer } from "./diff-viewer.js";
import { ErrorLine } from "./error-line.js";

export function CompareTurns({ source, id, turns }: { source: Source; id: string; turns: number[] }) {
  const [from, setFrom] = useState(turns[0] ?? 0);
  const [to, setTo] = useState(turns.at(-1) ?? 0);
  const [diff, setDiff] = useState<{ from: number; to: number; view: DiffView } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const compare = () => {
    setError(null);
    source.diff(id, from, to).then((view) => setDiff({ from, to, view }), setError);
  };
  const first = turns[0] ?? 0;
  const last = turns.at(-1) ?? 0;
  const picker = (label: string, value: number, set: (n: number) => void) => (
    <label>
      {label}{" "}
      <input
        type="number"
        min={first}
        max={last}
        step={1}
        value={value}
        onInput={(e) => {
          const n = e.currentTarget.valueAsNumber;
          if (Number.isInteger(n) && n >= first && n <= last) set(n);
        }}
      />
    </label>
  );
  return (
    <section class="compare" aria-label="Compare turns">
      <h2>Compare turns</h2>
      <div class="row">
        {picker("From turn", from, setFrom)}
        {picker("to turn", to, setTo)}
        <button type="button" onClick={compare} disabled={from === to}>
          Compare
        </button>
      </div>
      <ErrorLine error={error} />
      {diff ? <DiffViewer diff={diff.view} label={`Changes from turn ${diff.from} to turn ${diff.to}`} /> : null}
    </section>
  );
}
