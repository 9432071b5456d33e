/**
 * A piped prompt naming a real image that cannot go (too big) is not sent: one error line, the
 * other prompts go on, and nudge exits 1 at the end, so a script can tell that something it asked
 * was never asked. A file named like an image that is not one goes as text, with a note.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { randomPng } from "../support/png.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const TOO_BIG = "the image big.png is 6.0 MB: claude takes at most 5.0 MB per image; nothing was sent";
const bigPng = (dir: string) =>
  writeFileSync(
    path.join(dir, "big.png"),
    Buffer.concat([randomPng(100), Buffer.alloc(6 * 1024 * 1024 - randomPng(100).length)]),
  );

describe("a piped prompt naming a file that is not an image", () => {
  it("goes as text, with a line saying why nothing was attached; exit 0", async () => {
    const repo = await gitdir();
    writeFileSync(path.join(repo, "fake.png"), "not an image\n");
    writeFileSync(path.join(repo, "zeros.png"), Buffer.alloc(64));
    api = await startScriptedApi([{ text: "IT IS TEXT" }]);
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: claudeEnv(api, path.join(tempDir(), "cfg")),
      input: "why does fake.png not open? nor zeros.png\n",
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("⎿ fake.png not attached: not an image (its first bytes are text)");
    expect(run.stderr).toContain(
      "⎿ zeros.png not attached: not an image (its first bytes are not a PNG, JPEG, GIF or WebP)",
    );
    expect(run.stdout).toContain("IT IS TEXT");
    const [request] = api.mainLoopRequests();
    const last = (request!.body.messages as Array<{ role: string; content: unknown }>)
      .filter((m) => m.role === "user")
      .at(-1)!;
    expect(JSON.stringify(last.content)).toContain("why does fake.png not open? nor zeros.png");
    expect(JSON.stringify(last.content)).not.toContain('"image"');
  });
});

describe("a piped prompt whose image cannot go", () => {
  it("alone: one error line, nothing asked, no session kept, exit 1", async () => {
    const repo = await gitdir();
    bigPng(repo);
    api = await startScriptedApi([{ text: "NEVER ASKED" }]);
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: claudeEnv(api, path.join(tempDir(), "cfg")),
      input: "see big.png\n",
    });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(TOO_BIG);
    expect(run.stderr).toMatch(/nothing was asked; session \w+ is not kept/);
    expect(run.stderr).toContain("error: a prompt was not sent (shown above)");
    expect(run.stderr).not.toContain("    at "); // no stack trace
    expect(api.mainLoopRequests()).toHaveLength(0);
  });

  it("before another: the other is answered and kept, and nudge still exits 1", async () => {
    const repo = await gitdir();
    bigPng(repo);
    api = await startScriptedApi([{ text: "A PLAIN ANSWER" }]);
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: claudeEnv(api, path.join(tempDir(), "cfg")),
      input: "see big.png\nsay hi\n",
    });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(TOO_BIG);
    expect(run.stdout).toContain("A PLAIN ANSWER");
    const id = /session (\w+):/.exec(run.stderr)![1]!;
    expect(run.stderr).toContain(
      `error: a prompt was not sent (shown above)\nhint: once the cause is fixed, continue with: nudge claude run -r ${id}`,
    );
    const manifest = readManifestFile(path.join(repo, ".git", "nudge", "sessions", id));
    expect(manifest.turns.map((t) => [t.prompt, t.status])).toEqual([
      [null, "complete"],
      ["say hi", "complete"],
    ]);
  });
});
