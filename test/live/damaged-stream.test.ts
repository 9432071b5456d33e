/**
 * A session whose stream lost a piece (QA): the pieces left still fit together, so only the turns
 * recorded in the stream can tell. Continuing it, exporting it and forking past the loss are
 * refused in one line naming the damage (they would record new lines over those turns' places,
 * or carry an empty conversation); replay shows what is left, with a warning. Through the built
 * CLI, with the real claude and the scripted API.
 */
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { pieceNames } from "../support/stream.js";

let api: ScriptedApi;
let repo: string;
let env: Record<string, string>;
let id: string;
let bundle: string;

beforeAll(async () => {
  repo = await gitdir();
  // Each run ends by finishing what it wrote as a piece: turn 2, from the second run, is in the last one.
  api = await startScriptedApi([
    { text: `long answer ${"word ".repeat(16_000)}` },
    { text: "short answer" },
    { text: "never" },
  ]);
  env = claudeEnv(api, path.join(tempDir(), "cfg"));
  const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], { cwd: repo, env, input: "first\n" });
  expect(run.exitCode, run.stderr).toBe(0);
  id = /session (\w+):/.exec(run.stderr)![1]!;
  const again = await runNudge(["claude", "run", "-c", "--claude-bin", CLAUDE_BIN], {
    cwd: repo,
    env,
    input: "second\n",
  });
  expect(again.exitCode, again.stderr).toBe(0);
  bundle = path.join(repo, ".git", "nudge", "sessions", id);
  expect(pieceNames(bundle).length).toBeGreaterThanOrEqual(2);
  rmSync(path.join(bundle, "conversation.d", pieceNames(bundle).at(-1)!));
}, 120_000);

afterAll(() => api?.close());

describe("a session whose last piece of conversation.d is gone", () => {
  it("claude run -c refuses in one line and records nothing", async () => {
    const before = readManifestFile(bundle);
    const run = await runNudge(["claude", "run", "-c", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env,
      input: "third\n",
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: the conversation of the session in .*${id} is damaged: it ends at line \\d+ \\(byte \\d+\\), and the session's turns were recorded up to line \\d+`,
        "m",
      ),
    );
    expect(run.stderr).toContain(
      `hint: restore the session's folder from a backup, or remove the session with: nudge session rm ${id}`,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(readManifestFile(bundle).turns).toEqual(before.turns);
    expect(api.mainLoopRequests()).toHaveLength(2);
    expect(existsSync(path.join(bundle, "lock"))).toBe(false);
  });

  it("export and a fork past the loss are refused; replay shows what is left and says so", async () => {
    const exported = await runNudge(["session", "export", id, "-o", path.join(tempDir(), "x.tar.gz")], { cwd: repo });
    expect(exported.exitCode).toBe(1);
    expect(exported.stderr).toMatch(/is damaged: it holds \d+ whole lines, and the turns were recorded up to line \d+/);
    const fork = await runNudge(["session", "fork", id, "2", "--yes"], { cwd: repo });
    expect(fork.exitCode).toBe(1);
    expect(fork.stderr).toMatch(/is damaged: it ends at byte \d+, and the fork's turns were recorded up to byte \d+/);
    // Up to turn 1 the stream is whole: that fork is made.
    expect((await runNudge(["session", "fork", id, "1", "--yes"], { cwd: repo })).exitCode).toBe(0);
    const replay = await runNudge(["session", "replay", id], { cwd: repo });
    expect(replay.exitCode).toBe(0);
    expect(replay.stderr).toMatch(
      /^! the conversation \(conversation\.d and conversation\.jsonl\) holds \d+ lines while the manifest records \d+/m,
    );
  });
});
