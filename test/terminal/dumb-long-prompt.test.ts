/**
 * Issue 15, item 11, on a real pty with the real claude binary: with TERM=dumb, a prompt longer
 * than the terminal is wide was printed again on every key (a carriage return only goes back to
 * the start of the last row of a wrapped line). Now the rows before the cursor's are written once.
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

describe("a long prompt on a dumb terminal", () => {
  it("is on the screen once, typed a few keys at a time, and reaches claude whole", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "ANSWERED" }]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "dumb" },
    );
    await t.waitFor("› ");
    const prompt = Array.from({ length: 18 }, (_, i) => `word${String(i).padStart(2, "0")}`).join(" and ") + " END";
    for (let i = 0; i < prompt.length; i += 7) {
      t.type(prompt.slice(i, i + 7));
      await t.waitFor(prompt.slice(Math.max(0, i - 3), i + 7).slice(-4)); // each piece drawn before the next
    }
    t.type("\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    // The pty was never given a size: nudge draws for 80 columns.
    const { lines } = await render(t.screen(), 80, 50);
    expect(lines.filter((l) => l.includes("word00"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("END"))).toHaveLength(1);
    expect(JSON.stringify(api.mainLoopRequests()[0]!.body.messages)).toContain(prompt);
  });
});
