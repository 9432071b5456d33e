/**
 * claude run when claude rejects its arguments: one error, no session left behind.
 * Reproduced through the built CLI with the real claude binary and the scripted API on real temp
 * repositories.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runClaude } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("claude run with arguments claude rejects", () => {
  it("says what is wrong once, and leaves no session that -c would then continue", async () => {
    // `-- --bogus-flag` (or --permission-mode bogus): two "error:" lines, the first with a wrong hint
    // ("everything so far is recorded; the next prompt resumes the conversation"), and a session with
    // one incomplete turn is kept, which `nudge claude run -c` then resumes.
    const repo = await gitdir({ "a.txt": "a\n" });
    api = await startScriptedApi([]);
    const env = claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude"));
    const bad = await runClaude(repo, ["hi", "--", "--bogus-flag"], env);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr.match(/^error:/gm) ?? []).toHaveLength(1);
    expect(bad.stderr).not.toMatch(/the next prompt resumes the conversation/);
    const sessions = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    expect(sessions).toEqual([]);
  });

  it("a claude that exits at once without a word: one error, no session", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const run = await runNudge(["claude", "run", "--claude-bin", "/bin/false", "hi"], { cwd: repo, input: "" });
    expect(run.exitCode).toBe(1);
    expect(run.stderr.match(/^error:/gm) ?? [], run.stderr).toEqual(["error:"]);
    expect(run.stderr).toMatch(/^error: claude exited without answering/m);
    expect(JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout)).toEqual([]);
  });
});
