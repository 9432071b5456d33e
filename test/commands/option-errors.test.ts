/**
 * A bad option value is said in nudge's words — the flag, what it takes, the value given — with an
 * example in the hint, whatever command it belongs to; never the schema library's own words.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

let repo: string;
beforeAll(async () => {
  repo = await gitdir({ "README.md": "# app\n" });
});

describe("option errors", () => {
  it.each([
    [
      ["session", "list", "--limit", "abc"],
      'invalid --limit: expected a whole number above 0, got "abc"',
      "for example --limit 1",
    ],
    [
      ["session", "list", "--limit", "0"],
      'invalid --limit: expected a whole number above 0, got "0"',
      "for example --limit 1",
    ],
    [
      ["session", "list", "--limit", "2.5"],
      'invalid --limit: expected a whole number above 0, got "2.5"',
      "for example --limit 1",
    ],
    [
      ["session", "replay", "abc", "--speed", "0"],
      'invalid --speed: expected a number above 0, got "0"',
      "for example --speed 1",
    ],
    [
      ["session", "replay", "abc", "--idle-limit", "soon"],
      'invalid --idle-limit: expected a number of at least 0, got "soon"',
      "for example --idle-limit 0",
    ],
    [
      ["web", "--max-live", "40"],
      'invalid --max-live: expected a whole number from 1 to 32, got "40"',
      "for example --max-live 1",
    ],
    [
      ["claude", "loop", "fix it", "--until", "true", "--max-cost", "lots"],
      'invalid --max-cost: expected "none" or a number above 0, got "lots"',
      "for example --max-cost ",
    ],
    [
      ["claude", "loop", "fix it", "--until", "true", "--max-iterations", "-3"],
      'invalid --max-iterations: expected a whole number above 0, got "-3"',
      "for example --max-iterations ",
    ],
  ])("nudge %j", async (args, error, example) => {
    const r = await runNudge(args, { cwd: repo });
    expect(r.exitCode).toBe(1);
    const [first, hint, ...rest] = r.stderr.split("\n");
    expect(first).toBe(`error: ${error}`);
    expect(hint).toContain(`hint: ${example}`);
    expect(rest).toEqual([]);
    expect(r.stderr).not.toMatch(/Invalid input|Too small|Too big|received NaN|expected number/);
  });
});

describe("web --repo", () => {
  it("a mistyped --repo says the folder does not exist and points at the path, not at forking", async () => {
    const r = await runNudge(["web", "--repo", "/nonexistent/qa-repo"], { cwd: repo });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("error: --repo /nonexistent/qa-repo: there is no folder /nonexistent/qa-repo");
    expect(r.stderr).toContain("hint: check the path");
    expect(r.stderr).not.toMatch(/no longer exists|fork/);
  });
});
