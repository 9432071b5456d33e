/**
 * Text claude still streams after Esc is not shown under the interrupt notice: what was on screen
 * before the key stays, nothing of the interrupted turn follows it. Real claude, scripted API
 * streaming slowly, real pty.
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

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("interrupting a streaming answer", () => {
  it("shows nothing of the turn's text after the interrupt notice", async () => {
    const repo = await gitdir();
    // Words keep arriving in small pieces, as a slow API sends them, until the interrupt cuts them off.
    const parts: Array<string | Promise<unknown>> = ["The first words arrive "];
    for (let i = 0; i < 400; i++) parts.push(tick(15), `w${i} `);
    api = await startScriptedApi([{ textParts: parts }, { text: "SECOND ANSWER" }]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("tell me\r");
    await t.waitFor(/w30\b/);
    t.type("\u0003");
    await t.waitFor("interrupting the turn");
    // The turn may end interrupted, or done before the interrupt reached claude: either way, nothing after the notice.
    await t.waitFor(/turn 1 · \w+[^]*turn 1 saved/);
    t.type("again\r");
    await t.waitFor(/turn 2 · success[^]*turn 2 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    const text = t.text();
    const notice = text.indexOf("interrupting the turn");
    expect(text.slice(notice, text.search(/turn 1 · /))).not.toMatch(/w\d+/);
    expect(text.slice(0, notice)).toContain("The first words arrive");
  });
});
