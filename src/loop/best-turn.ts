/**
 * The turn to go back to when a loop goes nowhere: the last turn whose check got furthest.
 *
 * "Furthest", in order:
 * 1. the check passed (exit 0);
 * 2. a test runner's summary says how many tests failed: fewer failures, then more passes;
 * 3. it failed without a summary (a build error before any test ran): the lower exit code, then
 *    the shorter output (less to complain about);
 * 4. it did not finish (timed out).
 * Among equals, the later turn wins: it has the same result and more of the work.
 */
import { parseTestSummary, type TestSummary } from "./check-summary.js";

export interface CheckedTurn {
  /** The session the turn is in (a /rewind in the middle of a loop continues in a fork). */
  sessionId: string;
  n: number;
  check: { exitCode: number | null; output: string; outputBytes?: number };
}

/** Smaller is further along; compared element by element. */
function checkRank(check: CheckedTurn["check"]): number[] {
  if (check.exitCode === 0) return [0];
  if (check.exitCode === null) return [3];
  const summary: TestSummary | null = parseTestSummary(check.output);
  if (summary) return [1, summary.failed, -summary.passed];
  return [2, check.exitCode, check.outputBytes ?? check.output.length];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The best of the turns given in the order they ran (later wins a tie); null when none has a check. */
export function bestTurn<T extends CheckedTurn>(turns: T[]): T | null {
  let best: T | null = null;
  let bestRank: number[] = [];
  for (const turn of turns) {
    const rank = checkRank(turn.check);
    if (best === null || compare(rank, bestRank) <= 0) {
      best = turn;
      bestRank = rank;
    }
  }
  return best;
}
