/** How a loop says it ended, and the exit status scripts rely on. */
import { describe, expect, it } from "vitest";
import type { CheckRun } from "../../src/loop/check-run.js";
import { loopExitCode, summaryLines, type Iteration, type LoopOutcome } from "../../src/loop/loop-report.js";

const run = (exitCode: number | null, output = ""): CheckRun => ({
  command: "npm test",
  exitCode,
  timedOut: exitCode === null,
  aborted: false,
  output,
  tail: output,
  outputBytes: output.length,
  durationMs: 5,
});
const it_ = (iteration: number, check: CheckRun | null): Iteration => ({
  sessionId: "abc12345",
  n: iteration,
  iteration,
  intervention: false,
  check,
  costUsd: 0.25,
});
const outcome = (reason: LoopOutcome["reason"], iterations: Iteration[]): LoopOutcome => ({
  reason,
  iterations,
  costUsd: 0.75,
  elapsedMs: 61_000,
});

describe("loop summary", () => {
  it("passed: one line naming the iteration and turn; exit 0", () => {
    const o = outcome({ kind: "passed" }, [it_(0, run(1)), it_(1, run(1)), it_(2, run(0))]);
    expect(summaryLines(o)).toEqual([
      "✓ loop done: the check passed after iteration 2 (turn 2 of session abc12345) · 2 iterations · $0.7500 · 1m01s",
    ]);
    expect(loopExitCode(o)).toBe(0);
  });

  it("stopped: why, the last check, and the best turn with the command that goes back to it; exit 3", () => {
    const iterations = [
      it_(0, run(1, "5 failed, 0 passed in 1s")),
      it_(1, run(1, "1 failed, 4 passed in 1s")),
      it_(2, run(1, "2 failed, 3 passed in 1s")),
    ];
    const o = outcome(
      {
        kind: "guard",
        trip: { guard: "no-change", flag: "--guard-no-change 3", message: "no file changed in 3 iterations in a row" },
      },
      iterations,
    );
    expect(summaryLines(o)).toEqual([
      "■ loop stopped: guard tripped: no file changed in 3 iterations in a row (--guard-no-change 3) · 2 iterations · $0.7500 · 1m01s",
      "  last check: turn 2: exit 1 · 2 failed, 3 passed",
      "  best turn: 1: exit 1 · 1 failed, 4 passed · go back to it: nudge session rewind abc12345 1",
    ]);
    expect(loopExitCode(o)).toBe(3);
    expect(loopExitCode(outcome({ kind: "user", message: "Ctrl-C" }, iterations))).toBe(3);
    expect(loopExitCode(outcome({ kind: "budget", message: "x" }, iterations))).toBe(3);
  });

  it("from QA: a loop with no check (--until-promise alone) says nothing of turns not checked", () => {
    const o = outcome({ kind: "budget", message: "10 iterations run (--max-iterations 10)" }, [
      it_(1, null),
      it_(2, null),
    ]);
    expect(summaryLines(o)).toEqual([
      "■ loop stopped: budget spent: 10 iterations run (--max-iterations 10) · 2 iterations · $0.7500 · 1m01s",
    ]);
  });

  it("says when the last turn was not checked, and when nothing got better than the start", () => {
    const o = outcome({ kind: "budget", message: "3 seconds passed (--max-minutes 0.05)" }, [
      it_(0, run(1)),
      it_(1, run(1, "x".repeat(9))),
      it_(2, null),
    ]);
    expect(summaryLines(o).slice(1)).toEqual([
      "  turn 2 was not checked: the loop stopped first",
      "  best turn: 0 (where the loop started): exit 1 · go back to it: nudge session rewind abc12345 0",
    ]);
  });

  it("from QA: claude gave up before any iteration was checked: the start is not called the best turn", () => {
    const o = outcome({ kind: "failed", promise: "FAILURE", message: "cannot" }, [it_(0, run(1)), it_(1, null)]);
    expect(summaryLines(o).slice(1)).toEqual([
      "  turn 1 was not checked: the loop stopped first",
      "  no iteration was checked after the start (turn 0: exit 1) · to undo the loop's work: nudge session rewind abc12345 0",
    ]);
  });
});
