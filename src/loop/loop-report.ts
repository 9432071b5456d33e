/** What a loop says about its checks and how it ended, and the exit status that goes with it. */
import { formatCost, formatDuration } from "../base/format.js";
import { bestTurn, type CheckedTurn } from "./best-turn.js";
import type { CheckRun } from "./check-run.js";
import { describeSummary, parseTestSummary } from "./check-summary.js";
import type { Trip } from "./guards.js";

export type StopReason =
  | { kind: "passed"; how?: string }
  /** claude said the --fail-promise (<promise>FAILURE</promise>): it gave up, and says why. */
  | { kind: "failed"; promise: string; message: string }
  | { kind: "budget"; message: string }
  | { kind: "guard"; trip: Trip }
  | { kind: "rewound"; turn: number; trip: Trip }
  | { kind: "user"; message: string }
  /** The turn ended in an API error the next iteration would meet again (src/loop/api-failure.ts). */
  | { kind: "api"; message: string; hint: string };

/** One turn of the loop (or the check before the first one, as `iteration: 0`). */
export interface Iteration {
  sessionId: string;
  n: number;
  iteration: number;
  /** The prompt was a line the user typed during the loop. */
  intervention: boolean;
  /** null: the loop stopped before checking this turn (Ctrl-C twice, time up). */
  check: CheckRun | null;
  costUsd: number;
  /** A verifier's turn (--verify), not an iteration. */
  verifier?: boolean;
}

/** The turns whose check ran: the candidates for the best one. */
export function checked(iterations: Iteration[]): Array<Iteration & CheckedTurn & { check: CheckRun }> {
  return iterations.filter((i): i is Iteration & { check: CheckRun } => i.check !== null);
}

export interface LoopOutcome {
  reason: StopReason;
  iterations: Iteration[];
  costUsd: number;
  elapsedMs: number;
}

/** 0: done (the check passed, the promise was kept); 3: the loop stopped before (a guard, a budget, you, claude's FAILURE); 1: the API refused claude's request. */
export function loopExitCode(outcome: LoopOutcome): number {
  if (outcome.reason.kind === "api") return 1;
  return outcome.reason.kind === "passed" ? 0 : 3;
}

/** "passed", "exit 1 · 3 failed, 10 passed", "timed out". */
export function describeCheck(check: {
  exitCode: number | null;
  output?: string;
  tail?: string;
  timedOut?: boolean;
}): string {
  if (check.exitCode === 0) return "passed";
  if (check.exitCode === null) return check.timedOut === false ? "stopped" : "timed out";
  const summary = parseTestSummary(check.output ?? check.tail ?? "");
  return `exit ${check.exitCode}${summary ? ` · ${describeSummary(summary)}` : ""}`;
}

function describeReason(reason: StopReason): string {
  switch (reason.kind) {
    case "passed":
      return "the check passed";
    case "budget":
      return `budget spent: ${reason.message}`;
    case "guard":
      return `guard tripped: ${reason.trip.message} (${reason.trip.flag})`;
    case "rewound":
      return `guard tripped: ${reason.trip.message} (${reason.trip.flag}); you rewound to turn ${reason.turn}`;
    case "user":
      return `stopped by you (${reason.message})`;
    case "failed":
      return `claude gave up: <promise>${reason.promise}</promise>${reason.message ? `: ${reason.message}` : ""}`;
    case "api":
      return `the API refused claude's request, and the next iteration would meet the same: ${reason.message}`;
  }
}

/** The lines that end a loop: why it stopped, what it cost, and the turn to go back to. */
export function summaryLines(outcome: LoopOutcome): string[] {
  const turns = outcome.iterations.filter((i) => i.iteration > 0 && !i.verifier);
  const verifiers = outcome.iterations.filter((i) => i.verifier).length;
  const totals = `${turns.length} iteration${turns.length === 1 ? "" : "s"}${verifiers ? ` and ${verifiers} verification${verifiers === 1 ? "" : "s"}` : ""} · ${formatCost(outcome.costUsd)} · ${formatDuration(outcome.elapsedMs)}`;
  const last = checked(turns).at(-1);
  const lastIteration = turns.at(-1);
  if (outcome.reason.kind === "passed" && lastIteration) {
    return [
      `✓ loop done: ${outcome.reason.how ?? "the check passed"} after iteration ${lastIteration.iteration} (turn ${lastIteration.n} of session ${lastIteration.sessionId}) · ${totals}`,
    ];
  }
  const lines = [`■ loop stopped: ${describeReason(outcome.reason)} · ${totals}`];
  const lastTurn = turns.at(-1);
  // A loop with no check (--until-promise alone) checks no turn: nothing to say of the last one.
  const hasCheck = outcome.iterations.some((i) => i.check);
  if (lastTurn && !lastTurn.check && hasCheck)
    lines.push(`  turn ${lastTurn.n} was not checked: the loop stopped first`);
  else if (last) lines.push(`  last check: turn ${last.n}: ${describeCheck(last.check)}`);
  if (outcome.reason.kind === "api") lines.push(`  hint: ${outcome.reason.hint}`);
  if (outcome.reason.kind === "rewound") {
    lines.push(
      `  the files are back at turn ${outcome.reason.turn}; every turn of the loop stays in session ${last?.sessionId ?? "?"}`,
    );
    return lines;
  }
  const best = bestTurn(checked(outcome.iterations));
  if (best && best.iteration === 0 && !turns.some((t) => t.check)) {
    // No iteration's work was checked (claude gave up, or the budget ran out first): nothing is known
    // to be better or worse than the start, so it is not called the best.
    lines.push(
      `  no iteration was checked after the start (turn ${best.n}: ${describeCheck(best.check)}) · to undo the loop's work: nudge session rewind ${best.sessionId} ${best.n}`,
    );
  } else if (best) {
    const where = best === last ? " (the last one)" : best.iteration === 0 ? " (where the loop started)" : "";
    lines.push(
      `  best turn: ${best.n}${where}: ${describeCheck(best.check)} · go back to it: nudge session rewind ${best.sessionId} ${best.n}`,
    );
  }
  return lines;
}

/** The line after a check; with --verbose, the end of a failing check's output under it. */
export function checkLines(run: CheckRun, verbose: boolean): string[] {
  const took = run.durationMs < 1000 ? `${run.durationMs}ms` : `${(run.durationMs / 1000).toFixed(1)}s`;
  const lines = [`${run.exitCode === 0 ? "✓" : "✗"} check ${describeCheck(run)} · ${took}`];
  if (verbose && run.exitCode !== 0) for (const l of run.tail.split("\n").slice(-10)) lines.push(`  ${l}`);
  return lines;
}
