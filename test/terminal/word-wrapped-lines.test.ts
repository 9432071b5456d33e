/**
 * nudge's own long lines wrap at word boundaries on a terminal, as claude's prose does: the
 * permission question's `Allow?` line and a tool's output (the terminal used to cut them mid-word:
 * `.claude/setting` / `s.local.json`). Real claude, scripted API, a real pty read by a headless xterm.
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

const size = { cols: 50, rows: 30 };
const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa";

describe("long lines of nudge's own", () => {
  it("wrap at word boundaries: the Allow? line and a tool's output", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "touch made-by-claude.txt", description: "make it" } },
      { tool: "Bash", input: { command: `echo ${WORDS}`, description: "say" } },
      { text: "DONE" },
    ]);
    const t = inTerminal(repo, ["claude", "run", "-v", "--claude-bin", CLAUDE_BIN], claudeEnv(api, path.join(tempDir(), "cfg")), { term: "xterm-256color", size });
    await t.waitFor("› ");
    t.type("go\r");
    await t.waitFor("Allow?");
    await new Promise((r) => setTimeout(r, 200));
    const asking = (await render(t.screen(), size.cols, size.rows)).lines;
    const allow = asking.findLastIndex((l) => l.includes("Allow?"));
    // The rows end between words: joined with spaces, they are the line again (the status line under them aside).
    const rows = asking.slice(allow, -1).map((l) => l.trimEnd());
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.join(" ")).toBe("Allow? [y]es / [n]o / [a]lways for this session / [d]on't ask again (save rule Bash(touch made-by-claude.txt) in .claude/settings.local.json)");
    t.type("y\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/, 60_000);
    const { lines } = await render(t.screen(), size.cols, size.rows);
    const first = lines.findIndex((l) => l.startsWith("  ⎿ alpha"));
    expect(first).toBeGreaterThan(-1);
    const output = [lines[first]!.slice(4)];
    for (let i = first + 1; lines[i]?.startsWith("    ") && !lines[i]!.startsWith("    ⎿"); i++) output.push(lines[i]!.slice(4));
    expect(output.length).toBeGreaterThan(1);
    expect(output.join(" ")).toBe(WORDS);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
  }, 120_000);
});
