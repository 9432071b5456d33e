/**
 * Issue 21: a paste of 500 lines, on a real terminal with the real claude binary, stands as one
 * line on the prompt (`[pasted 500 lines]`) and reaches claude whole, as one turn.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { render } from "./pty.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("a big paste", () => {
  it("shows as one line and is sent whole, as one turn", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "READ IT ALL" }]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    const pasted = Array.from({ length: 500 }, (_, i) => `pasted line ${i + 1}`).join("\r");
    t.type(`summarise this: \u001b[200~${pasted}\u001b[201~`);
    await t.waitFor("› summarise this: [pasted 500 lines]");
    t.type("\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);

    const { lines } = await render(t.screen(), 80, 24);
    expect(lines).toContain("› summarise this: [pasted 500 lines]");
    expect(lines.join("\n")).not.toContain("pasted line 250");
    // One turn: one request of the main loop, holding every line.
    expect(api.mainLoopRequests()).toHaveLength(1);
    const sent = JSON.stringify(api.mainLoopRequests()[0]!.body.messages);
    expect(sent).toContain("pasted line 250\\npasted line 251\\n");
    expect(sent).toContain("pasted line 499\\npasted line 500");
    expect(sent).toContain("summarise this: pasted line 1\\npasted line 2\\n");
  });
});
