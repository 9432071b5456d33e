/**
 * Cost and time per turn as two rows of bars, to be looked at rather than read: the expensive or
 * slow turns stand out. SVG with attributes only (the CSP allows no inline style), one path per
 * row (2,000 rects with titles were a good part of a 1,000-turn page's start); the turn under the
 * pointer is named in the caption, and a click goes to it.
 */
import { useState } from "preact/hooks";
import type { TurnSummaryView } from "../../../../view/view-types.js";
import { cost, duration } from "../format.js";

const HEIGHT = 28;

/** `sessionCostUsd`: the session's total when its turns have no cost of their own (claude's own sessions). */
export function Timeline({
  turns,
  onPick,
  sessionCostUsd,
}: {
  turns: TurnSummaryView[];
  onPick: (n: number) => void;
  sessionCostUsd?: number | null;
}) {
  const [hover, setHover] = useState<TurnSummaryView | null>(null);
  const asked = turns.filter((t) => t.n > 0);
  if (asked.length === 0) return null;
  const most = (pick: (t: TurnSummaryView) => number) => Math.max(...asked.map(pick), 1e-9);
  const row = (pick: (t: TurnSummaryView) => number, y: number) => {
    const max = most(pick);
    return asked
      .map((t, i) => {
        const h = Math.max(0.5, (pick(t) / max) * HEIGHT);
        return `M${i + 0.1} ${(y + HEIGHT - h).toFixed(2)}h0.8v${h.toFixed(2)}h-0.8z`;
      })
      .join("");
  };
  const at = (e: MouseEvent) => {
    const box = (e.currentTarget as SVGSVGElement).getBoundingClientRect();
    return (
      asked[Math.min(asked.length - 1, Math.max(0, Math.floor(((e.clientX - box.left) / box.width) * asked.length)))] ??
      null
    );
  };
  // The scale in words: each row's bars run from 0 to its highest turn, named here.
  const top = (pick: (t: TurnSummaryView) => number) => asked.reduce((a, b) => (pick(b) > pick(a) ? b : a));
  const [costliest, slowest] = [top((t) => t.costUsd ?? 0), top((t) => t.durationMs ?? 0)];
  const sum = (pick: (t: TurnSummaryView) => number) => asked.reduce((total, t) => total + pick(t), 0);
  // No turn with a cost of its own: the cost row would claim $0, so it says what is known instead.
  const costed = asked.some((t) => t.costUsd !== null);
  return (
    <figure class="timeline">
      <figcaption>
        {costed ? (
          <>
            <span class="key cost">cost</span> per turn (top bar: up to {cost(costliest.costUsd)}, turn {costliest.n};
            total {cost(sum((t) => t.costUsd ?? 0))}) and{" "}
          </>
        ) : (
          <>
            no cost per turn (
            {sessionCostUsd != null ? `the session's total: ${cost(sessionCostUsd)}` : "none recorded"});{" "}
          </>
        )}
        <span class="key time">time</span> per turn (lower bar: up to {duration(slowest.durationMs)}, turn {slowest.n};
        total {duration(sum((t) => t.durationMs ?? 0))})
        {hover ? (
          <span class="muted">{` · turn ${hover.n}: ${costed ? `${cost(hover.costUsd)}, ` : ""}${duration(hover.durationMs)}`}</span>
        ) : null}
      </figcaption>
      <svg
        role="img"
        aria-label="Timeline: cost and time per turn"
        viewBox={`0 0 ${asked.length} ${HEIGHT * 2 + 4}`}
        preserveAspectRatio="none"
        onMouseMove={(e) => setHover(at(e))}
        onMouseLeave={() => setHover(null)}
        onClick={(e) => {
          const t = at(e);
          if (t) onPick(t.n);
        }}
      >
        {costed ? <path class="bar cost" d={row((t) => t.costUsd ?? 0, 0)} /> : null}
        <path class="bar time" d={row((t) => t.durationMs ?? 0, HEIGHT + 4)} />
      </svg>
      <div class="axis" aria-hidden="true">
        <span>turn {asked[0]!.n}</span>
        {asked.length > 2 ? <span>turn {asked[Math.floor(asked.length / 2)]!.n}</span> : null}
        <span>turn {asked.at(-1)!.n}</span>
      </div>
    </figure>
  );
}
