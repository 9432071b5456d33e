/**
 * A `y` typed just before a permission question appears (meant as its answer, too early) is not
 * sent to claude as a prompt after the answer: it is taken back onto the prompt line, unsent, and
 * a notice says so (issue 15, item 12). Real claude, scripted API, real pty.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal, unwrapped } from "../support/pty.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { render } from "./pty.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("type-ahead just before a question", () => {
  it("is not sent as a paid turn: it waits on the prompt line, and a notice says so", async () => {
    const repo = await gitdir();
    let ask!: () => void;
    const asked = new Promise<void>((r) => (ask = r));
    api = await startScriptedApi([
      { text: "ready" },
      // Turn 2's question comes only once the test has typed ahead.
      { after: asked, then: { tool: "Write", input: { file_path: path.join(repo, "early.txt"), content: "1\n" } } },
      { text: "written" },
      { text: "never: the typed-ahead y must not reach claude" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("first\r"); // claude started and warm, so the question follows the key at once
    await t.waitFor(/turn 1 · [^]*turn 1 saved/);
    t.type("write early.txt\r");
    for (let i = 0; i < 800 && api.mainLoopRequests().length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    t.type("y\r"); // typed ahead, before the question
    await t.waitFor("queued: y");
    ask();
    await t.waitFor("Allow?");
    t.type("y\r");
    await t.waitFor(/turn 2 · [^]*turn 2 saved/);
    await t.waitFor("› y");
    // Wider than the terminal: wrapped between words.
    expect(unwrapped(t.text())).toContain(
      '! "y", typed just before this question, was not sent: it waits on the prompt line',
    );
    t.type("\u0015/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    expect(api.mainLoopRequests()).toHaveLength(3); // turn 1, the Write, its follow-up: no turn for "y"
    expect((await render(t.screen(), 80, 24)).lines.join("\n")).not.toContain("turn 3");
  });
});
