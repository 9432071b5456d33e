/**
 * A file the user made by hand between turns (recorded as their edits) that a rewind deletes is
 * named as theirs in the plan, apart from claude's files, as Claude Code's rewind keeps them apart.
 * Real claude, scripted API, a real temp repository.
 */
import { writeFileSync } from "node:fs";
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

describe("a rewind's plan", () => {
  it("names the files you made by hand between turns as yours", async () => {
    const repo = await gitdir();
    const cfg = path.join(tempDir(), "cfg");
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "a\n" } },
      { text: "wrote a" },
      { tool: "Write", input: { file_path: path.join(repo, "b.txt"), content: "b\n" } },
      { text: "wrote b" },
    ]);
    const args = ["claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits"];
    const first = await runNudge(args, { cwd: repo, env: claudeEnv(api, cfg), input: "write a\n" });
    expect(first.exitCode, first.stderr).toBe(0);
    writeFileSync(path.join(repo, "mine.txt"), "made by hand\n");
    const second = await runNudge([...args, "-c"], { cwd: repo, env: claudeEnv(api, cfg), input: "write b\n" });
    expect(second.exitCode, second.stderr).toBe(0);
    const id = /session (\w+):/.exec(second.stderr)![1]!;
    const plan = await runNudge(["session", "rewind", id, "1", "--dry-run", "--code-only"], { cwd: repo });
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^ {2}delete {2}b\.txt$/m);
    expect(plan.stdout).not.toMatch(/^ {2}delete {2}mine\.txt$/m);
    expect(plan.stdout).toMatch(
      / {2}yours: files you changed by hand between turns \(recorded as your edits; the backup keeps them, undo brings them back\):\n {4}delete {4}mine\.txt/,
    );

    // Rewound to turn 1, the work tree is that snapshot: going back to turn 2 puts nothing of
    // yours at stake (it named b.txt "in none of this session's snapshots … you deleted it").
    expect((await runNudge(["session", "rewind", id, "1", "--yes", "--code-only"], { cwd: repo })).exitCode).toBe(0);
    const back = await runNudge(["session", "rewind", id, "2", "--dry-run", "--code-only"], { cwd: repo });
    expect(back.stdout).toMatch(/^ {2}write {3}b\.txt$/m);
    expect(back.stdout).not.toContain("none of this session's snapshots");
    expect(back.stdout).not.toContain("backup: the work tree has changes not in any snapshot");
  });
});
