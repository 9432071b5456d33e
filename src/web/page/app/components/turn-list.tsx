/**
 * The turns' sections, in chunks drawn so far, and the pending turn's below them. Each chunk is its
 * own memoized component: drawing the next one leaves the ones drawn alone (re-rendering every
 * drawn section per batch made a 1,000-turn start quadratic).
 */
import { Component } from "preact";
import type { TurnSummaryView } from "../../../../view/view-types.js";
import type { Source } from "../source.js";
import { TurnSection } from "./turn-section.js";

interface ListProps {
  source: Source;
  sessionId: string;
  chunks: TurnSummaryView[][];
  /** How many chunks to draw. */
  drawn: number;
  /** The turn claude is on, not yet among the turns. */
  pendingN: number | null;
  versions: Record<number, number>;
  forced: Set<number>;
  onChanged: () => void;
  lockedWhy: string | null;
  /** What the reading tools hide, as classes of the turns' container. */
  shownClasses: string;
}

export function TurnList({ chunks, drawn, pendingN, shownClasses, ...shared }: ListProps) {
  const { source, sessionId, versions, onChanged } = shared;
  return (
    <div id="turns" class={shownClasses}>
      {chunks.slice(0, drawn).map((chunk) => (
        <TurnChunk key={chunk[0]!.n} turns={chunk} {...shared} />
      ))}
      {pendingN !== null ? (
        <TurnSection
          key={`p${pendingN}`}
          source={source}
          sessionId={sessionId}
          summary={null}
          pendingN={pendingN}
          version={versions[pendingN] ?? 0}
          forced
          onChanged={onChanged}
        />
      ) : null}
    </div>
  );
}

interface ChunkProps {
  source: Source;
  sessionId: string;
  turns: TurnSummaryView[];
  versions: Record<number, number>;
  forced: Set<number>;
  onChanged: () => void;
  lockedWhy: string | null;
}

/** A run of turn sections, drawn again only when one of its own turns changed. */
class TurnChunk extends Component<ChunkProps> {
  override shouldComponentUpdate(next: ChunkProps): boolean {
    const now = this.props;
    if (
      now.source !== next.source ||
      now.sessionId !== next.sessionId ||
      now.turns !== next.turns ||
      now.onChanged !== next.onChanged ||
      now.lockedWhy !== next.lockedWhy
    )
      return true;
    return next.turns.some(
      (t) => (now.versions[t.n] ?? 0) !== (next.versions[t.n] ?? 0) || now.forced.has(t.n) !== next.forced.has(t.n),
    );
  }

  override render({ source, sessionId, turns, versions, forced, onChanged, lockedWhy }: ChunkProps) {
    return (
      <>
        {turns.map((t) => (
          <TurnSection
            key={t.n}
            source={source}
            sessionId={sessionId}
            summary={t}
            version={versions[t.n] ?? 0}
            forced={forced.has(t.n)}
            onChanged={onChanged}
            lockedWhy={lockedWhy}
          />
        ))}
      </>
    );
  }
}
