/** Which turn a stopped loop suggests going back to, and how a check's output is read. */
import { describe, expect, it } from "vitest";
import { bestTurn, type CheckedTurn } from "../../src/loop/best-turn.js";
import { parseTestSummary } from "../../src/loop/check-summary.js";

const turn = (n: number, exitCode: number | null, output = ""): CheckedTurn => ({
  sessionId: "s1",
  n,
  check: { exitCode, output },
});

describe("bestTurn", () => {
  it("takes the turn with the fewest failures the runner reports, and more passes among equal failures", () => {
    const turns = [
      turn(0, 1, " Tests  5 failed | 8 passed (13)"),
      turn(1, 1, " Tests  2 failed | 11 passed (13)"),
      turn(2, 1, " Tests  3 failed | 10 passed (13)"),
      turn(3, 1, " Tests  2 failed | 9 passed (11)"),
    ];
    expect(bestTurn(turns)?.n).toBe(1);
  });

  it("takes the last of equally good turns: same result, more of the work", () => {
    expect(
      bestTurn([
        turn(0, 1, "3 failed, 1 passed in 0.1s"),
        turn(1, 1, "1 failed, 3 passed in 0.2s"),
        turn(2, 1, "1 failed, 3 passed in 0.3s"),
        turn(3, 1, "2 failed, 2 passed in 0.1s"),
      ])?.n,
    ).toBe(2);
    expect(bestTurn([turn(0, 1), turn(1, 1), turn(2, 1)])?.n).toBe(2);
  });

  it("ranks a check that got as far as a test summary above one that stopped before (a build error)", () => {
    const turns = [
      turn(1, 1, "Tests:       9 failed, 1 passed, 10 total"),
      turn(2, 2, "src/a.ts(3,1): error TS2304: Cannot find name 'x'.\nFound 1 error."),
    ];
    expect(bestTurn(turns)?.n).toBe(1);
  });

  it("without summaries: the lower exit code, then the shorter output; a timeout ranks last; a pass ranks first", () => {
    expect(
      bestTurn([turn(1, 2, "x"), turn(2, 1, "a much longer complaint"), turn(3, 1, "short"), turn(4, null, "")])?.n,
    ).toBe(3);
    expect(bestTurn([turn(1, 0, " Tests  0 failed"), turn(2, 1, "1 failed, 99 passed in 1s")])?.n).toBe(1);
    expect(bestTurn([turn(1, null), turn(2, null)])?.n).toBe(2);
    expect(bestTurn([])).toBeNull();
  });
});

describe("parseTestSummary", () => {
  it.each([
    [
      "vitest",
      " Test Files  1 failed | 2 passed (3)\n      Tests  3 failed | 10 passed | 1 skipped (14)\n   Start at  12:00:01",
      { runner: "vitest", failed: 3, passed: 10 },
    ],
    [
      "jest",
      "Test Suites: 1 failed, 1 passed, 2 total\nTests:       1 failed, 1 skipped, 5 passed, 7 total\nSnapshots:   0 total",
      { runner: "jest", failed: 1, passed: 5 },
    ],
    [
      "pytest",
      "FAILED test_x.py::test_a\n===== 3 failed, 10 passed, 1 error in 0.12s =====",
      { runner: "pytest", failed: 4, passed: 10 },
    ],
    ["pytest -q", "..F\n1 failed, 2 passed, 1 warning in 0.01s", { runner: "pytest", failed: 1, passed: 2 }],
    [
      "mocha",
      "  10 passing (20ms)\n  3 failing\n\n  1) adds:\n     AssertionError",
      { runner: "mocha", failed: 3, passed: 10 },
    ],
    ["node --test", "# tests 13\n# pass 10\n# fail 3\n# cancelled 0", { runner: "node", failed: 3, passed: 10 }],
    [
      "cargo, two crates",
      "test result: FAILED. 10 passed; 3 failed; 0 ignored; 0 measured\ntest result: ok. 4 passed; 0 failed; 0 ignored",
      { runner: "cargo", failed: 3, passed: 14 },
    ],
    [
      "go test",
      "--- FAIL: TestAdd (0.00s)\n--- FAIL: TestSub (0.00s)\nFAIL\tex.com/m\t0.01s",
      { runner: "go", failed: 2, passed: 0 },
    ],
  ])("%s", (_name, output, expected) => {
    expect(parseTestSummary(output)).toEqual(expected);
  });

  it("is null for output that names no test counts (a compiler, a plain failure)", () => {
    expect(parseTestSummary("Found 3 errors in 2 files.")).toBeNull();
    expect(parseTestSummary("Test Files  1 failed | 2 passed (3)")).toBeNull();
    expect(parseTestSummary("")).toBeNull();
  });
});
