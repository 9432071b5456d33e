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
import { render, screenWhen } from "./pty.js";

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
    const t = inTerminal(
      repo,
      ["claude", "run", "-v", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color", size },
    );
    await t.waitFor("› ");
    t.type("go\r");
    await t.waitFor("Allow?");
    const asking = await screenWhen(t.screen, size, underQuestion, "the status line under the question");
    const allow = asking.findLastIndex((l) => l.includes("Allow?"));
    // The rows end between words: joined with spaces, they are the line again (the status line under them aside).
    const rows = asking.slice(allow, -1).map((l) => l.trimEnd());
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.join(" ")).toBe(
      "Allow? [y]es / [n]o / [a]lways for this session / [d]on't ask again (save rule Bash(touch made-by-claude.txt) in .claude/settings.local.json)",
    );
    t.type("y\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/, 60_000);
    const { lines } = await render(t.screen(), size.cols, size.rows);
    const first = lines.findIndex((l) => l.startsWith("  ⎿ alpha"));
    expect(first).toBeGreaterThan(-1);
    const output = [lines[first]!.slice(4)];
    for (let i = first + 1; lines[i]?.startsWith("    ") && !lines[i]!.startsWith("    ⎿"); i++)
      output.push(lines[i]!.slice(4));
    expect(output.length).toBeGreaterThan(1);
    expect(output.join(" ")).toBe(WORDS);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
  }, 120_000);

  it("wrap at word boundaries in colour at 60 columns: the question's command, the ⏺ line, /help and /clear", async () => {
    const wide = { cols: 60, rows: 60 };
    const command = "echo all such words to show how a bigger command wraps > .claude/settings.local.json";
    const repo = await gitdir();
    api = await startScriptedApi([{ tool: "Bash", input: { command, description: "write it" } }, { text: "DONE" }]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color", size: wide, color: true },
    );
    await t.waitFor("› ");
    t.type("go\r");
    await t.waitFor("Allow?");
    const asking = await screenWhen(t.screen, wide, underQuestion, "the status line under the question");
    // The command as the question shows it: its rows, joined with spaces, are the command again.
    expect(logicalLine(asking, "echo all", command)).toBe(command);
    t.type("n\r");
    await t.waitFor("Reason for claude");
    t.type("\r");
    await t.waitFor(/turn 1 · [^]*turn 1 saved/, 60_000);
    t.type("/help\r");
    await t.waitFor("Ctrl-Z suspend");
    t.type("/clear\r");
    await t.waitFor(/\/clear: claude starts[^]*conversation\s+and\s+code/);
    const lines = await screenWhen(
      t.screen,
      wide,
      (rows) => rows.findLastIndex((l) => l.startsWith("› ")) > rows.findLastIndex((l) => l.includes("⎿ /clear")),
      "the prompt back under /clear's answer",
    );
    expect(logicalLine(lines, "⏺ Bash(", `⏺ Bash(${command})`)).toBe(`⏺ Bash(${command})`);
    const keys = "Shift-Tab next permission mode · Esc or Ctrl-C interrupt the turn (at a question: no)";
    expect(logicalLine(lines, "Shift-Tab", keys)).toBe(keys);
    const clear =
      "⎿ /clear: claude starts a new conversation without the turns before it; nudge keeps recording them in this session, and /rewind <n> to one of them brings back that turn's conversation and code";
    expect(logicalLine(lines, "⎿ /clear", clear)).toBe(clear);
    // No row is wider than the terminal would show whole (each fits, so the terminal cut none).
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(wide.cols);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
  }, 120_000);
});

/** The status line drawn under a question (its last row): the question's rows are all drawn above it. */
const underQuestion = (rows: string[]) => /waiting for your answer/.test(rows.at(-1) ?? "");

/**
 * The rows from the last that starts (after its indent) with `start`, as many as `whole` takes,
 * trimmed and joined with spaces: `whole` again when every row ended between two words.
 */
function logicalLine(lines: string[], start: string, whole: string): string {
  const first = lines.findLastIndex((l) => l.trimStart().startsWith(start));
  expect(first, lines.join("\n")).toBeGreaterThan(-1);
  const rows: string[] = [];
  for (let i = first; i < lines.length && rows.join(" ").length < whole.length; i++) rows.push(lines[i]!.trim());
  return rows.join(" ");
}
