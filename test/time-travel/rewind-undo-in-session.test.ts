/**
 * /rewind then /undo inside a live run keeps the session that was rewound.
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

describe("/rewind then /undo", () => {
  it("/rewind then /undo, then the end of input: the session that was rewound and undone keeps its turns", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "a\n" } },
      { text: "wrote a" },
    ]);
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits"], {
      cwd: repo,
      env: claudeEnv(api, path.join(tempDir(), "cfg")),
      input: "write a\n/rewind 0\n/undo\n",
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const id = /recording session (\w+)/.exec(run.stderr)![1]!;
    expect(run.stderr).toContain(`undid the rewind of ${id} to turn 0`);
    // The undo went back to the original session; ending the run must not throw it away.
    const sessions = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{
      id: string;
      turns: number;
    }>;
    expect(
      sessions.find((x) => x.id === id),
      run.stderr,
    ).toMatchObject({ id, turns: 1 });
  });
});
