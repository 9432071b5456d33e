/**
 * A piped prompt naming a file that cannot go as an image (not one, too big) is not sent: one
 * error line, the other prompts go on, and nudge exits 1 at the end, so a script can tell that
 * something it asked was never asked.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const NOT_AN_IMAGE = "fake.png is not a PNG, JPEG, GIF or WebP image (by its first bytes); nothing was sent";

describe("a piped prompt whose image cannot go", () => {
  it("alone: one error line, nothing asked, no session kept, exit 1", async () => {
    const repo = await gitdir();
    writeFileSync(path.join(repo, "fake.png"), "not an image\n");
    api = await startScriptedApi([{ text: "NEVER ASKED" }]);
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], { cwd: repo, env: claudeEnv(api, path.join(tempDir(), "cfg")), input: "see fake.png\n" });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(NOT_AN_IMAGE);
    expect(run.stderr).toMatch(/nothing was asked; session \w+ is not kept/);
    expect(run.stderr).toContain("error: a prompt was not sent (shown above)");
    expect(run.stderr).not.toContain("    at "); // no stack trace
    expect(api.mainLoopRequests()).toHaveLength(0);
  });

  it("before another: the other is answered and kept, and nudge still exits 1", async () => {
    const repo = await gitdir();
    writeFileSync(path.join(repo, "fake.png"), "not an image\n");
    api = await startScriptedApi([{ text: "A PLAIN ANSWER" }]);
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], { cwd: repo, env: claudeEnv(api, path.join(tempDir(), "cfg")), input: "see fake.png\nsay hi\n" });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(NOT_AN_IMAGE);
    expect(run.stdout).toContain("A PLAIN ANSWER");
    const id = /session (\w+):/.exec(run.stderr)![1]!;
    expect(run.stderr).toContain(`error: a prompt was not sent (shown above)\nhint: once the cause is fixed, continue with: nudge claude run -r ${id}`);
    const manifest = readManifestFile(path.join(repo, ".git", "nudge", "sessions", id));
    expect(manifest.turns.map((t) => [t.prompt, t.status])).toEqual([
      [null, "complete"],
      ["say hi", "complete"],
    ]);
  });
});
