/**
 * Issue 15, item 11: on a dumb terminal (TERM=dumb: only \r and backspace), a prompt longer than
 * the row is typed on one row, scrolled sideways, not printed again on every keystroke (a real pty,
 * the real claude binary, the screen read back through a headless xterm).
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { render } from "./pty.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("a long prompt on a dumb terminal", () => {
  it("is shown once while it is typed, then sent whole", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "GOT IT" }]);
    const t = inTerminal(repo, ["claude", "run", "--claude-bin", CLAUDE_BIN], claudeEnv(api, path.join(tempDir(), "cfg")), { term: "dumb" });
    await t.waitFor("› ");
    const prompt = `start-${"x".repeat(140)}-end`;
    for (const ch of prompt) t.type(ch); // one key at a time, each a redraw
    await t.waitFor("-end");
    t.type("\r");
    await t.waitFor("turn 1 · success");
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    // nudge assumes 80 columns on a pty that never said its size; the xterm is as wide.
    const rows = (await render(t.screen(), 80, 24)).lines;
    expect(rows.filter((r) => r.includes("start-")), rows.join("\n")).toHaveLength(1); // the sent prompt, once
    // The sent prompt takes its two rows; nothing else of it is left on screen (no copy per key).
    expect(rows.filter((r) => r.includes("xxxxxxxxxx")), rows.join("\n")).toHaveLength(2);
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{ path: string }>;
    expect(readManifestFile(session!.path).turns[1]!.prompt).toBe(prompt);
  });
});
