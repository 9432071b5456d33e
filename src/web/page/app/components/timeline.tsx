/**
 * Cost and time per turn as two rows of bars, to be looked at rather than read: the expensive or
 * slow turns stand out. SVG, with attributes only (the CSP allows no inline style); each bar's
 * title names its turn, and a click goes to it.
 */
import type { TurnSummaryView } from "../../../../view/view-types.js";
import { cost, duration } from "../format.js";

const HEIGHT = 28;

export function Timeline({ turns, onPick }: { turns: TurnSummaryView[]; onPick: (n: number) => void }) {
  const asked = turns.filter((t) => t.n > 0);
  if (asked.length === 0) return null;
  const most = (pick: (t: TurnSummaryView) => number) => Math.max(...asked.map(pick), 1e-9);
  const maxCost = most((t) => t.costUsd ?? 0);
  const maxTime = most((t) => t.durationMs ?? 0);
  const width = Math.max(asked.length, 1);
  const row = (pick: (t: TurnSummaryView) => number, max: number, y: number, name: string, fmt: (t: TurnSummaryView) => string) =>
    asked.map((t, i) => {
      const h = Math.max(0.5, (pick(t) / max) * HEIGHT);
      return (
        <rect key={`${name}${t.n}`} class={`bar ${name}`} x={i + 0.1} y={y + HEIGHT - h} width={0.8} height={h} onClick={() => onPick(t.n)}>
          <title>{`Turn ${t.n}: ${fmt(t)}`}</title>
        </rect>
      );
    });
  return (
    <figure class="timeline">
      <figcaption>
        <span class="key cost">cost</span> and <span class="key time">time</span> per turn
      </figcaption>
      <svg role="img" aria-label="Timeline: cost and time per turn" viewBox={`0 0 ${width} ${HEIGHT * 2 + 4}`} preserveAspectRatio="none">
        {row((t) => t.costUsd ?? 0, maxCost, 0, "cost", (t) => cost(t.costUsd))}
        {row((t) => t.durationMs ?? 0, maxTime, HEIGHT + 4, "time", (t) => duration(t.durationMs))}
      </svg>
    </figure>
  );
}
