/**
 * Issue-15 reproductions in a live `nudge claude run` with the real claude binary: the docs'
 * own allow rule (`^node --test$`) does not let `touch PWNED.txt\nnode --test` through, and a
 * catastrophic pattern in a teammate's rules file does not freeze nudge.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir, writeFiles } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptStep, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** Claude's default mode, nobody at a terminal: whatever no rule allows is asked, and so refused. */
async function run(repo: string, steps: ScriptStep[]) {
  api = await startScriptedApi(steps);
  const env = claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude"));
  return runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
    cwd: repo,
    env,
    input: "run the tests\n",
    timeout: 60_000,
  });
}

describe("hostile commands and patterns in a live session", () => {
  it("an allow rule for `node --test` does not allow a command that runs something else first", async () => {
    const repo = await gitdir();
    writeFiles(repo, {
      ".nudge/rules.yaml":
        "version: 1\nrules:\n  - id: run-tests\n    match: { tool: Bash, command: '^node --test$' }\n    action: allow\n",
    });
    const result = await run(repo, [
      { tool: "Bash", input: { command: "touch PWNED.txt\nnode --test", description: "run the tests" } },
      { text: "done" },
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(existsSync(path.join(repo, "PWNED.txt"))).toBe(false);
    // Not allowed by the rule, so claude asked; with nobody to answer that is a refusal.
    expect(result.stderr).not.toContain("rule run-tests allowed");
    expect(result.stderr).toMatch(/refused|not allowed|denied/);
  });

  it("a catastrophic pattern does not freeze nudge: the turn ends and the session closes", async () => {
    const repo = await gitdir();
    writeFiles(repo, {
      ".nudge/rules.yaml":
        "version: 1\nrules:\n  - id: slow\n    match: { tool: Bash, command: '^(a+)+$' }\n    action: deny\n    message: no\n",
    });
    const result = await run(repo, [
      { tool: "Bash", input: { command: `${"a".repeat(40)}!`, description: "run it" } },
      { text: "done" },
    ]);
    expect(result.timedOut, "nudge froze").toBe(false);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toMatch(/turn 1 · success/);
  });
});
