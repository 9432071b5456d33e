/**
 * "[a]lways for this session" on a pty: the same command is the same call, however claude describes it.
 * Found by black-box QA of the built CLI (real claude binary, scripted Messages API, real temp
 * git repositories).
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("always for this session", () => {
  it("[a]lways for this session covers the same Bash command when claude words its description differently", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "echo one > one.txt", description: "Write one" } },
      // The same command again; only claude's free-text description differs.
      { tool: "Bash", input: { command: "echo one > one.txt", description: "Write one to one.txt again" } },
      { text: "done" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
    );
    await t.waitFor("› ");
    t.type("write it twice\r");
    await t.waitFor(/\? Bash[^]*Allow\?/);
    t.type("a\r");
    await t.waitFor(/allowed Bash\(echo one > one\.txt\) · for this session: this same call/);
    // Either the turn ends (not asked again), or a second question comes: answer it so the run ends.
    await t.waitFor(/turn 1 ·|this same call[^]*Allow\?/);
    const askedAgain = !/turn 1 ·/.test(t.text());
    if (askedAgain) {
      t.type("y\r");
      await t.waitFor(/turn 1 · [^]*turn 1 saved/);
    }
    t.type("/exit\r");
    await t.child;
    expect(askedAgain, t.text()).toBe(false);
  }, 20_000);
});
