/**
 * Issue 21: Shift-Tab cycles claude's permission mode (default → acceptEdits → plan) during a
 * session, through claude's set_permission_mode control request, on a real terminal with the real
 * claude binary. In acceptEdits the next Write is not asked; the mode shows under the prompt.
 */
import { existsSync, readFileSync } from "node:fs";
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

const SHIFT_TAB = "\u001b[Z";

describe("Shift-Tab", () => {
  it("switches to acceptEdits, and the next Write is not asked", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { text: "hello" },
      { tool: "Write", input: { file_path: path.join(repo, "hello.txt"), content: "hi\n" } },
      { text: "WROTE IT" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("hi\r"); // claude is running when the mode changes
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type(SHIFT_TAB);
    await t.waitFor("⏵⏵ accept edits on (shift-tab to cycle)");
    t.type("write it\r");
    await t.waitFor(/turn 2 · success[^]*turn 2 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    expect(t.text()).not.toContain("? Write(");
    expect(readFileSync(path.join(repo, "hello.txt"), "utf8")).toBe("hi\n");
    // What nudge told claude is in the bundle, before the turn it changed.
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{
      path: string;
    }>;
    const input = readFileSync(path.join(session!.path, "input.jsonl"), "utf8");
    expect(input).toMatch(/"subtype":"set_permission_mode","mode":"acceptEdits"/);
  });

  it("cycles on to plan and back to the default mode", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { text: "hello" },
      { tool: "Write", input: { file_path: path.join(repo, "asked.txt"), content: "x\n" } },
      { text: "OK" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("hi\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type(SHIFT_TAB);
    await t.waitFor("accept edits on");
    t.type(SHIFT_TAB);
    await t.waitFor("⏸ plan mode on");
    t.type(SHIFT_TAB);
    t.type("write it\r");
    await t.waitFor("? Write(asked.txt)"); // the default mode asks again
    t.type("\u001b"); // Esc: no
    await t.waitFor(/turn 2 · success[^]*turn 2 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    expect(existsSync(path.join(repo, "asked.txt"))).toBe(false);
  });

  it("a plan approved with 'a' (yes, and accept edits) lets the next Write through unasked", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "ExitPlanMode", input: { plan: "1. Write plan.txt" } },
      { tool: "Write", input: { file_path: path.join(repo, "plan.txt"), content: "done\n" } },
      { text: "IMPLEMENTED" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "plan"],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("plan it\r");
    await t.waitFor("[a] yes + accept edits");
    t.type("a\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    expect(t.text()).not.toContain("? Write(");
    expect(t.text()).toContain("accept edits on");
    expect(readFileSync(path.join(repo, "plan.txt"), "utf8")).toBe("done\n");
  });
});
