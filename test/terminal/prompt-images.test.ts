/**
 * Issue 21: a path to an image in a prompt, on a real terminal with the real claude binary, reaches
 * the Messages API as an image block beside the text; `session replay` and `session show` name it,
 * and `session export` says images are not scanned for secrets. An image over the
 * API's limit is refused in one line, and nothing is sent.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

describe("images in prompts", () => {
  it("a PNG path in the prompt is sent as an image block, and replay names it; one too big is refused", async () => {
    const repo = await gitdir();
    writeFileSync(path.join(repo, "shot.png"), PNG);
    const big = path.join(tempDir(), "big.png");
    writeFileSync(big, Buffer.concat([PNG.subarray(0, 16), Buffer.alloc(6 * 1024 * 1024)]));
    api = await startScriptedApi([{ text: "A SINGLE PIXEL" }]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type(`look at ${big}\r`);
    await t.waitFor("claude takes at most 5.0 MB per image; nothing was sent");
    t.type("what is in @shot.png?\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);

    expect(api.mainLoopRequests()).toHaveLength(1); // the refused prompt never reached claude
    const messages = api.mainLoopRequests()[0]!.body.messages as Array<{ role: string; content: unknown }>;
    const content = messages.filter((m) => m.role === "user").at(-1)!.content as Array<Record<string, unknown>>;
    expect(content).toContainEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: PNG.toString("base64") },
    });
    expect(JSON.stringify(content)).toContain("what is in shot.png?"); // the @ dropped: claude does not attach it again
    expect(content.filter((c) => c.type === "image")).toHaveLength(1);

    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{
      id: string;
    }>;
    const replay = await runNudge(["session", "replay", session!.id], { cwd: repo });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stdout).toContain(`⎿ [image: shot.png ${PNG.length} bytes]`);

    // `session show` names it as replay does; an export (archive or page) says images go unscanned.
    const show = await runNudge(["session", "show", session!.id], { cwd: repo });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain(`turn 1: [image: shot.png ${PNG.length} bytes]`);
    const out = tempDir();
    const archive = await runNudge(["session", "export", session!.id, "-o", out], { cwd: repo });
    expect(archive.exitCode, archive.stderr).toBe(0);
    expect(archive.stderr).toContain(
      `1 image in the prompts ([image: shot.png ${PNG.length} bytes]) exported as they are: images are not scanned for secrets`,
    );
    const page = await runNudge(["session", "export", session!.id, "--html", "-o", out], { cwd: repo });
    expect(page.exitCode, page.stderr).toBe(0);
    expect(page.stderr).toContain("images are not scanned for secrets");
  });
});
