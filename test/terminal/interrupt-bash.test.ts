/**
 * Ctrl-C while an allowed Bash command runs (issue 15, item 14): the turn is interrupted without
 * claude's own tool result for the interruption on screen (it is claude's bookkeeping, not the
 * command's output), and the interrupt notice starts a line of its own, never glued to streamed
 * text. Real claude, scripted API, real pty rendered by a headless xterm.
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

describe("Ctrl-C during an allowed Bash command", () => {
  it("interrupts the turn; claude's interruption tool result is not shown; the notice is on a line of its own", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "node -e 'setTimeout(() => {}, 60000)'", description: "wait for the build" } },
      { text: "never" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN, "--allowed-tools", "Bash"],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("wait\r");
    await t.waitFor("running Bash(node -e 'setTimeout(() => {}, 60000)')");
    t.type("\u0003");
    await t.waitFor(/turn 1 · interrupted[^]*turn 1 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    const lines = (await render(t.screen(), 80, 24)).lines;
    const screen = lines.join("\n");
    expect(screen).toContain("⏺ Bash(node -e 'setTimeout(() => {}, 60000)')");
    expect(lines.some((l) => l.startsWith("⏸ interrupting the turn"))).toBe(true);
    expect(screen).not.toMatch(/Request interrupted/);
    // No tool result line: the one `⎿` is the turn's changes line, under its end line.
    expect(
      lines.filter((l) => l.includes("⎿")),
      screen,
    ).toEqual(["  ⎿ turn 1 saved · no changes"]);
  });

  it("Ctrl-C while text is half streamed: the notice starts a line of its own", async () => {
    const repo = await gitdir();
    const never = new Promise<void>(() => undefined);
    api = await startScriptedApi([{ textParts: ["Half a sentence and", never] }]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("talk\r");
    await t.waitFor("Half a sentence and");
    t.type("\u0003");
    await t.waitFor(/turn 1 · interrupted[^]*turn 1 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    const lines = (await render(t.screen(), 80, 24)).lines;
    const at = lines.indexOf("Half a sentence and");
    expect(at, lines.join("\n")).toBeGreaterThanOrEqual(0);
    expect(lines[at + 1]).toMatch(/^⏸ interrupting the turn/);
    expect(lines[at + 2]).toBe("⏸ turn interrupted"); // no blank line: the notice ended claude's line
  });
});
