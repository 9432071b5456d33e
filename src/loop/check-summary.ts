/**
 * How far a check got, read from a test runner's own summary line: vitest, jest, pytest, mocha,
 * node's test runner, cargo test and go test. Only test runners count: a check like
 * `npm run build && npm test` that gets as far as running tests is further along than one that
 * stops at the build, so a compiler's error count is deliberately not a "failure count" here.
 */
export interface TestSummary {
  runner: "vitest" | "jest" | "pytest" | "mocha" | "node" | "cargo" | "go";
  failed: number;
  passed: number;
}

/** `3 failed`, `10 passed`, `1 error` … as a map from word to count. */
function counts(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const m of text.matchAll(/(\d+)\s+([a-z]+)/gi)) {
    const word = m[2]!.toLowerCase();
    found.set(word, (found.get(word) ?? 0) + Number(m[1]));
  }
  return found;
}

const get = (c: Map<string, number>, ...words: string[]) => words.reduce((n, w) => n + (c.get(w) ?? 0), 0);

type LineParser = { runner: TestSummary["runner"]; match: (line: string) => { failed: number; passed: number } | null };

/** One summary line per runner (a monorepo prints several: they are added up). */
const LINE_PARSERS: LineParser[] = [
  {
    // vitest: " Tests  3 failed | 10 passed (13)"; not "Test Files  1 failed | 2 passed (3)".
    runner: "vitest",
    match: (line) => {
      const m = /^\s*Tests\s{2,}(\d+ [a-z]+(?: \| \d+ [a-z]+)*)\s+\(\d+\)/.exec(line);
      if (!m) return null;
      const c = counts(m[1]!);
      return { failed: get(c, "failed"), passed: get(c, "passed") };
    },
  },
  {
    // jest: "Tests:       1 failed, 1 skipped, 5 passed, 7 total"
    runner: "jest",
    match: (line) => {
      const m = /^\s*Tests:\s+(.*\d+ total)\s*$/.exec(line);
      if (!m) return null;
      const c = counts(m[1]!);
      return { failed: get(c, "failed"), passed: get(c, "passed") };
    },
  },
  {
    // pytest: "===== 3 failed, 10 passed, 1 error in 0.12s =====" (or without the rules, with -q)
    runner: "pytest",
    match: (line) => {
      const m =
        /^=*\s*((?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)(?:, |\s))+)\s*in [\d.]+s\b/.exec(
          line.trim(),
        );
      if (!m) return null;
      const c = counts(m[1]!);
      return { failed: get(c, "failed", "error", "errors"), passed: get(c, "passed") };
    },
  },
  {
    // cargo test: "test result: FAILED. 10 passed; 3 failed; 0 ignored; ..."
    runner: "cargo",
    match: (line) => {
      const m = /^test result: \w+\. (\d+) passed; (\d+) failed;/.exec(line.trim());
      return m ? { failed: Number(m[2]), passed: Number(m[1]) } : null;
    },
  },
];

/** The summary of the last runner that printed one, or null when the output names none. */
export function parseTestSummary(output: string): TestSummary | null {
  const lines = output.split("\n");
  for (const parser of LINE_PARSERS) {
    let total = null as TestSummary | null;
    for (const line of lines) {
      const found = parser.match(line);
      if (found)
        total = {
          runner: parser.runner,
          failed: (total?.failed ?? 0) + found.failed,
          passed: (total?.passed ?? 0) + found.passed,
        };
    }
    if (total) return total;
  }
  return pairedCounts(output) ?? goTest(lines);
}

/** mocha ("10 passing (20ms)" / "3 failing") and node --test ("# pass 10" / "ℹ fail 3"): two lines. */
function pairedCounts(output: string): TestSummary | null {
  const mochaPass = /^\s*(\d+) passing\b/m.exec(output);
  if (mochaPass)
    return {
      runner: "mocha",
      passed: Number(mochaPass[1]),
      failed: Number(/^\s*(\d+) failing\b/m.exec(output)?.[1] ?? 0),
    };
  const nodePass = /^(?:#|ℹ) pass (\d+)\s*$/m.exec(output);
  const nodeFail = /^(?:#|ℹ) fail (\d+)\s*$/m.exec(output);
  if (nodePass && nodeFail) return { runner: "node", passed: Number(nodePass[1]), failed: Number(nodeFail[1]) };
  return null;
}

/** go test prints one "--- FAIL:" line per failed test (and "--- PASS:" only with -v). */
function goTest(lines: string[]): TestSummary | null {
  const failed = lines.filter((l) => /^\s*--- FAIL: /.test(l)).length;
  if (failed === 0) return null;
  return { runner: "go", failed, passed: lines.filter((l) => /^\s*--- PASS: /.test(l)).length };
}

export function describeSummary(summary: TestSummary): string {
  return `${summary.failed} failed, ${summary.passed} passed`;
}
