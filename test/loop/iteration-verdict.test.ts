/** How an iteration ended: the promise and the check must agree; FAILURE ends it regardless (issue 20). */
import { describe, expect, it } from "vitest";
import type { CheckRun } from "../../src/loop/check-run.js";
import { iterationVerdict, saidPromise } from "../../src/loop/iteration-verdict.js";

const endings = { promise: "COMPLETE", failPromise: "FAILURE" };
const check = (exitCode: number): CheckRun => ({
  command: "npm test",
  exitCode,
  timedOut: false,
  aborted: false,
  output: "",
  tail: "",
  outputBytes: 0,
  durationMs: 1,
});

describe("iteration verdict", () => {
  it("done only when the promise is kept and the check passes; a refuted promise is told to claude", () => {
    const kept = saidPromise("done <promise>COMPLETE</promise>", endings);
    expect(iterationVerdict(kept, check(0), endings)).toMatchObject({ done: true, feedback: null });
    const refuted = iterationVerdict(kept, check(1), endings);
    expect(refuted.done).toBe(false);
    expect(refuted.say).toBe(
      "✗ claude says <promise>COMPLETE</promise>, but the check fails: not trusted, the loop goes on",
    );
    expect(refuted.feedback).toContain("but the check `npm test` still fails (exit status 1)");
    const silent = iterationVerdict(saidPromise("tests pass now", endings), check(0), endings);
    expect(silent).toMatchObject({ done: false, checkPassed: true });
    expect(silent.feedback).toContain("did not say <promise>COMPLETE</promise>");
  });

  it("without a check the promise decides; without --until-promise the check does", () => {
    expect(iterationVerdict(saidPromise("<promise>COMPLETE</promise>", endings), null, endings)).toMatchObject({
      done: true,
      checkPassed: false,
    });
    expect(iterationVerdict(saidPromise("no promise", endings), null, endings).done).toBe(false);
    const checkOnly = { promise: null, failPromise: "FAILURE" };
    expect(iterationVerdict(saidPromise("whatever", checkOnly), check(0), checkOnly).done).toBe(true);
  });

  it("FAILURE wins over COMPLETE in the same message, and another promise is recorded but not kept", () => {
    expect(saidPromise("<promise>COMPLETE</promise> no wait <promise>FAILURE</promise>", endings)).toMatchObject({
      gaveUp: { promise: "FAILURE" },
      kept: null,
      recorded: "FAILURE",
    });
    expect(saidPromise("<promise>HALF</promise>", endings)).toMatchObject({
      gaveUp: null,
      kept: null,
      recorded: "HALF",
    });
  });
});
