/**
 * session fork --worktree --dry-run plans and changes nothing.
 * Found by black-box QA of the built CLI (real claude binary, scripted Messages API, real temp
 * git repositories).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitdir, tempDir } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("fork --worktree --dry-run", () => {
  it("session fork --worktree --dry-run changes nothing: no worktree, no new session", async () => {
    const repo = await gitdir();
    const recorded = await recordSession(
      repo,
      [{ tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "a\n" } }, { text: "a" }],
      ["write a"],
    );
    await recorded.api.close();
    const target = path.join(tempDir(), "try-b");
    const run = await runNudge(["session", "fork", recorded.id, "1", "--worktree", target, "--dry-run"], { cwd: repo });
    const sessions = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as unknown[];
    // A dry run may print what it would do, or refuse the combination; it must not do it.
    expect({ worktreeMade: existsSync(target), sessions: sessions.length }, run.stdout + run.stderr).toEqual({
      worktreeMade: false,
      sessions: 1,
    });
  });
});
