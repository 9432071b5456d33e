/**
 * Issue 15, item 16, on a real terminal with the real claude binary: Esc at a permission question
 * is "no", as in Claude Code; Shift-Tab at the prompt puts nothing into it (it used to insert a tab):
 * it cycles the permission mode (issue 21), three presses back to the default, which asks.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("Esc and Shift-Tab", () => {
  it("Esc at a permission question refuses the tool call; Shift-Tab at the prompt inserts nothing", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "hello.txt"), content: "hi\n" } },
      { text: "DONE" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("wri");
    t.type("\u001b[Z\u001b[Z\u001b[Z"); // Shift-Tab ×3: acceptEdits, plan, default again
    t.type("te it\r");
    await t.waitFor("? Write(hello.txt)");
    t.type("\u001b"); // Esc
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    expect(t.text()).toMatch(/✗ denied Write\(hello\.txt\)/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    expect(existsSync(path.join(repo, "hello.txt"))).toBe(false);
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{
      path: string;
    }>;
    expect(readManifestFile(session!.path).turns[1]!.prompt).toBe("write it");
  });
});
