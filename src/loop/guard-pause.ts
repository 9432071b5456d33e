/** What a loop asks on a terminal when a guard trips: go on, stop, or go back to the best turn so far. */
import { bestTurn } from "./best-turn.js";
import { checked, describeCheck, type Iteration } from "./loop-report.js";

export interface PauseQuestion {
  question: string;
  /** The turn a rewind goes back to; null: none is offered. */
  rewindTo: number | null;
}

/** A rewind is offered to the best turn so far, when it is another turn of the session the loop is in. */
export function pauseQuestion(iterations: Iteration[], sessionId: string, turn: number): PauseQuestion {
  const best = bestTurn(checked(iterations));
  const rewindTo = best && best.sessionId === sessionId && best.n !== turn ? best : null;
  const options = `[c]ontinue, [s]top${rewindTo ? `, or [r]ewind to turn ${rewindTo.n} (the best so far: ${describeCheck(rewindTo.check)})` : ""}`;
  return { question: `${options}? [c/S${rewindTo ? "/r" : ""}]`, rewindTo: rewindTo?.n ?? null };
}
