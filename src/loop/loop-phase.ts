/**
 * Where a loop is, as one value: each phase carries what only it has, so no flag beside it can
 * say something the phase contradicts (a verifier's turn that is also an iteration's, a check to
 * abort while a turn runs).
 */
import type { ApiFailure } from "./api-failure.js";

/** Whose turn it is: the loop's own iteration, or the verifier checking that the work is done. */
export type TurnRole = "iteration" | "verifier";

/** What the next prompt is: an iteration's, the verifier's, or the /rewind the user chose at a pause. */
type NextPrompt = { kind: "iteration" } | { kind: "verifier" } | { kind: "rewind"; turn: number };

export type LoopPhase =
  /** Between turns. */
  | { kind: "idle"; next: NextPrompt }
  /** A turn in flight; `apiFailure`: the API error it ended with, when no further iteration can get past it. */
  | { kind: "turn"; role: TurnRole; apiFailure: ApiFailure | null }
  /** After a turn: the check, the verdict, the guards; `abort` stops the check while it runs. */
  | { kind: "check"; abort: AbortController | null }
  /** A guard tripped and the person at the terminal is asked what to do. */
  | { kind: "pause" };

export const IDLE: LoopPhase = { kind: "idle", next: { kind: "iteration" } };
