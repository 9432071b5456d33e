/** A turn the address asks for that this session has not: which turns it has. */
import type { TurnSummaryView } from "../../../../view/view-types.js";

/** `badTurn`: the address's turn when it is no number; `asked`: a turn number the session has not. */
export function MissingTurnNotice({
  badTurn,
  asked,
  turns,
}: {
  badTurn: string | null;
  asked: number | null;
  turns: TurnSummaryView[];
}) {
  const range = turns.length ? `${turns[0]!.n} to ${turns.at(-1)!.n}` : "none yet";
  return (
    <>
      {badTurn !== null ? (
        <p class="notice warn" role="status">
          “{badTurn}” is no turn number: this session's turns are {range}.
        </p>
      ) : null}
      {asked !== null ? (
        <p class="notice warn" role="status">
          This session has no turn {asked}: its turns are {range}.
        </p>
      ) : null}
    </>
  );
}
