/**
 * A turn an API error ended is not called a success.
 * Found by black-box QA of the built CLI (real claude binary, scripted Messages API, real temp
 * git repositories).
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("a turn ended by an API error", () => {
  it("a turn that ended in an API error is not reported as a success (end line, session show)", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ httpError: { status: 500, type: "api_error", message: "boom" } }]);
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: { ...claudeEnv(api, path.join(tempDir(), "cfg")), CLAUDE_CODE_MAX_RETRIES: "0" },
      input: "hello\n",
    });
    expect(run.stdout).toContain("API Error: 500 boom");
    const id = /recording session (\w+)/.exec(run.stderr)![1]!;
    expect(run.stderr).toMatch(/● turn 1 · /);
    expect(run.stderr).not.toMatch(/● turn 1 · success/);
    const show = await runNudge(["session", "show", id], { cwd: repo });
    const row = show.stdout.split("\n").find((l) => l.startsWith("1 "));
    expect(row, show.stdout).toBeDefined();
    expect(row).not.toMatch(/\bsuccess\b/);
  });
});
