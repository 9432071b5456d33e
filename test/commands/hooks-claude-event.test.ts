/**
 * `nudge hooks claude-event`, as claude runs it: whatever its input, it exits 0 (2 would block
 * claude) and says at most one line; a folder that is not git is told once, at the session's start.
 */
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

const hook = (event: string, cwd: string, extra: object = {}) =>
  JSON.stringify({ hook_event_name: event, session_id: "0b3c2d1e-aaaa-bbbb-cccc-111122223333", cwd, ...extra });

describe("hooks claude-event", () => {
  it("input that is not a hook's, or a hook in a folder that is not git: exit 0, one line at most, nothing written", async () => {
    const dir = tempDir();
    for (const input of [
      "not json",
      '{"hook_event_name": 3}',
      JSON.stringify({ hook_event_name: "Stop", session_id: "../../etc", cwd: dir }),
    ]) {
      const run = await runNudge(["hooks", "claude-event"], { cwd: dir, input });
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/^nudge: not recorded: /);
    }
    const start = await runNudge(["hooks", "claude-event"], {
      cwd: dir,
      input: hook("SessionStart", dir, { source: "startup" }),
    });
    expect(start.exitCode).toBe(0);
    expect(JSON.parse(start.stdout)).toEqual({
      systemMessage: expect.stringMatching(/^nudge is not recording this session: not a git repository/),
    });
    const prompt = await runNudge(["hooks", "claude-event"], {
      cwd: dir,
      input: hook("UserPromptSubmit", dir, { prompt: "hi" }),
    });
    expect([prompt.exitCode, prompt.stdout, prompt.stderr]).toEqual([0, "", ""]);
  });

  it("PreToolUse answers by the project's rules without starting git: the same answer with no git on the PATH", async () => {
    const repo = await gitdir({
      "keep.txt": "k\n",
      ".nudge/rules.yaml": `version: 1
rules:
  - id: no-rm
    match: { tool: Bash, command: '\\brm\\b' }
    action: deny
    message: Never delete files with rm here.
`,
    });
    const cwd = path.join(repo, "sub", "deeper");
    mkdirSync(cwd, { recursive: true });
    // node alone on the PATH: a git started by the hook would not be found.
    const bin = tempDir();
    symlinkSync(process.execPath, path.join(bin, "node"));
    const input = hook("PreToolUse", cwd, {
      tool_name: "Bash",
      tool_input: { command: "rm keep.txt" },
      tool_use_id: "t1",
    });
    const withGit = await runNudge(["hooks", "claude-event"], { cwd, input });
    const noGit = await runNudge(["hooks", "claude-event"], { cwd, input, env: { PATH: bin } });
    expect(withGit.stdout).toContain("Never delete files with rm here.");
    expect([noGit.exitCode, noGit.stdout, noGit.stderr]).toEqual([0, withGit.stdout, ""]);
  });

  it("a claude nudge runs itself is left to that nudge: nothing recorded", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    for (const mark of ["NUDGE_CLAUDE_RUN", "NUDGE_TUI_SESSION"]) {
      const run = await runNudge(["hooks", "claude-event"], {
        cwd: repo,
        input: hook("SessionStart", repo, { source: "startup" }),
        env: { [mark]: "x" },
      });
      expect([run.exitCode, run.stdout, run.stderr]).toEqual([0, "", ""]);
    }
    expect(existsSync(path.join(repo, ".git", "nudge", "sessions"))).toBe(false);
    const bad = await runNudge(["hooks", "claude-event", "--finish", "x", "--claude-pid", "abc"], { cwd: repo });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("--claude-pid");
  });
});
