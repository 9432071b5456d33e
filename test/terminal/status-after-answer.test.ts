/**
 * The status line after a permission question is answered says what runs, not that it is still
 * waiting for an answer (issue 15, item 7). Real claude, scripted API, a real pty rendered by a
 * headless xterm.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { render, screenWhen } from "./pty.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("the status line during a question", () => {
  it("stays on screen under the question and says it waits for your answer", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "touch asked.txt", description: "ask" } },
      { text: "DONE" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("ask me\r");
    await t.waitFor("Allow?");
    const lines = await screenWhen(
      t.screen,
      { cols: 80, rows: 24 },
      (rows) => /waiting for your answer/.test(rows.at(-1) ?? ""),
      "the status line under the question",
    );
    // The bottom row, under the question's answer line.
    expect(lines.findLastIndex((l) => l.includes("Allow?"))).toBeGreaterThan(lines.length - 4);
    expect(lines.at(-1)).toMatch(/^. waiting for your answer · \d+s/);
    expect(lines.at(-1)).not.toContain("Ctrl-C to interrupt"); // at a question Ctrl-C is "no"
    t.type("y\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/, 60_000);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
  }, 120_000);
});

describe("the status line while an allowed tool runs", () => {
  it("says `running Bash(…)` once the question is answered, while the command runs", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "sleep 5; echo slept > slept.txt", description: "nap" } },
      { text: "DONE" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("nap\r");
    await t.waitFor("Allow?");
    t.type("y\r");
    await t.waitFor("✓ allowed Bash(sleep 5; echo slept > slept.txt)");
    // The bottom row is the status line; the command runs for 5 s, long past its next redraw.
    const bottom = async () => (await render(t.screen(), 80, 24)).lines.at(-1) ?? "";
    let status = await bottom();
    for (let i = 0; i < 200 && !/running Bash|DONE|turn 1/.test(status); i++) {
      await new Promise((r) => setTimeout(r, 25));
      status = await bottom();
    }
    expect(status).toMatch(/running Bash\(sleep 5; echo slept > slept.txt\)/);
    expect(status).not.toContain("waiting for your answer");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/, 60_000); // a login shell under load can take long
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
  }, 120_000);
});
