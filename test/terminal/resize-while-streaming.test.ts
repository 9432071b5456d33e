/**
 * Issue 15, item 15: a terminal made narrower while claude's text streams under the status line
 * keeps no piece of the status line. The pty is resized from outside (stty on its device, which
 * sends nudge SIGWINCH, as a terminal window does); the headless xterm that replays the bytes is
 * resized at the same point, and reflows what it shows as terminals do.
 */
import xterm from "@xterm/headless";
import { execaSync } from "execa";
import { readFileSync, readlinkSync } from "node:fs";
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every row the terminal holds (scrollback too), after `before` at `cols`, a resize to `narrow`, then `after`. */
async function replay(before: string, after: string, cols: number, narrow: number): Promise<string[]> {
  const terminal = new xterm.Terminal({ cols, rows: 24, allowProposedApi: true, scrollback: 1000 });
  await new Promise<void>((resolve) => terminal.write(before, resolve));
  terminal.resize(narrow, 24);
  await new Promise<void>((resolve) => terminal.write(after, resolve));
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
  terminal.dispose();
  return lines;
}

describe("resizing while claude writes", () => {
  it("a narrower terminal mid-stream leaves no spinner or status fragment behind", async () => {
    const repo = await gitdir();
    let finish!: () => void;
    const rest = new Promise<void>((resolve) => (finish = resolve));
    api = await startScriptedApi([{ textParts: ["First words of the answer", rest, " and the end of it."] }]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    execaSync("stty", ["-F", ptyOf(t.child.pid!), "cols", "80", "rows", "24"]);
    await sleep(300);
    t.type("answer\r");
    await t.waitFor("First words of the answer");
    await t.waitFor("Ctrl-C to interrupt"); // the status line, under the half-written line
    await sleep(300);
    const split = t.screen().length;
    execaSync("stty", ["-F", ptyOf(t.child.pid!), "cols", "24", "rows", "24"]);
    await sleep(500); // nudge redraws for the new width
    finish();
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    const rows = await replay(t.screen().slice(0, split), t.screen().slice(split), 80, 24);
    const fragments = rows.filter((r) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|interrupt|Ctrl-C|writing ·/.test(r));
    expect(fragments, rows.join("\n")).toEqual([]);
  });
});

/** The pty device of the nudge that `script` runs (its only child). */
function ptyOf(scriptPid: number): string {
  const children = readFileSync(`/proc/${scriptPid}/task/${scriptPid}/children`, "utf8").trim().split(/\s+/);
  return readlinkSync(`/proc/${children[0]}/fd/0`);
}
