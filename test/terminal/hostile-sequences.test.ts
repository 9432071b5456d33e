/**
 * Issue 15, item 3: claude's words cannot drive the terminal. Every sequence of the hostile corpus
 * (fixtures/hostile-terminal/sequences.json: OSC titles, links and clipboard, CSI screen wipes, the
 * alternate screen, DCS/APC/PM/SOS, \r and backspace, C1 controls in UTF-8, bidi overrides) goes
 * through each way nudge puts session text on a terminal — live on a real pty with the real claude
 * binary (streamed text, thinking, tool names and inputs, tool output), a piped run, replay, show,
 * list, diff with hostile file names and contents, rules test and an error message — and must come
 * out shown, not obeyed: the only escape sequences left are nudge's SGR colours (and, on the pty,
 * the screen's own cursor movement for the status line), the title never changes, the screen is
 * never cleared.
 */
import xterm from "@xterm/headless";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { FIXTURES } from "../support/fixture-dir.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { runClaude } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

interface Hostile {
  name: string;
  text: string;
}
const corpus = JSON.parse(readFileSync(path.join(FIXTURES, "hostile-terminal", "sequences.json"), "utf8")) as Hostile[];
/** All of it, one sequence a line, each named so its shown form can be found. */
const message = corpus.map((h) => `[${h.name}] ${h.text}`).join("\n");
/** The same, for a command line, which cannot hold NUL. */
const argMessage = corpus
  .filter((h) => !h.text.includes("\u0000"))
  .map((h) => `[${h.name}] ${h.text}`)
  .join("\n");

/** How a control is shown, as docs/reference/security-model.md says: \xNN for a byte-sized one, \uNNNN for the bidi ones. Written out here, not taken from src. */
function shownForm(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** nudge's own: SGR colours; on a terminal also the screen's erase, cursor up/right, cursor shown/hidden, bracketed paste. */
const SGR = /\u001b\[[0-9;]*m/y;
const SCREEN = /\u001b\[(?:[0-9;]*m|\d*[KJAC]|\?(?:25|2004)[hl])/y;

/** Every escape sequence (or lone ESC) that is not one of `allowed`, and every other control a terminal would obey. */
function foreign(bytes: string, allowed: RegExp, carriageReturn = false): string[] {
  const found: string[] = [];
  for (let i = bytes.indexOf("\u001b"); i !== -1; i = bytes.indexOf("\u001b", i + 1)) {
    allowed.lastIndex = i;
    if (!allowed.test(bytes)) found.push(JSON.stringify(bytes.slice(i, i + 12)));
  }
  const controls = carriageReturn
    ? /[\u0000-\u0008\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g
    : /[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
  for (const m of bytes.matchAll(controls)) found.push(JSON.stringify(m[0]));
  return found;
}

/** The screen a person would see, and whether anything retitled the window or left the normal screen. */
async function play(bytes: string, cols = 120): Promise<{ lines: string[]; titles: string[]; buffer: string }> {
  const terminal = new xterm.Terminal({ cols, rows: 40, allowProposedApi: true, scrollback: 5000 });
  const titles: string[] = [];
  terminal.onTitleChange((t) => titles.push(t));
  await new Promise<void>((resolve) => terminal.write(bytes, resolve));
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
  const type = buffer.type;
  terminal.dispose();
  return { lines, titles, buffer: type };
}

const stripSgr = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, "");
const colour = { FORCE_COLOR: "1", NO_COLOR: "" };

let api: ScriptedApi | undefined;
let repo: string;
let live: { id: string; bytes: string };
let piped: { id: string; stdout: string; stderr: string };

beforeAll(async () => {
  repo = await gitdir();
  // Files whose names and contents are hostile, for claude to copy in (a name cannot hold / or NUL).
  const stage = tempDir("nudge-hostile-");
  for (const h of corpus.filter((h) => !/[/\u0000]/.test(h.text)))
    writeFileSync(path.join(stage, `h-${h.name}-${h.text}`), `${h.text}\n`);
  mkdirSync(path.join(stage, "text"));
  writeFileSync(path.join(stage, "text", "hostile.txt"), `${message}\n`);
  api = await startScriptedApi([
    { thinking: message, text: message },
    {
      tool: "Bash",
      input: { command: `cp -a '${stage}/.' . && cat text/hostile.txt`, description: `copy ${corpus[0]!.text}` },
      text: "copying",
    },
    { text: "copied" },
    { text: message },
  ]);
  const env = claudeEnv(api, path.join(tempDir(), "cfg"));
  // Live, on a real terminal, with -v: thinking, tool inputs and tool output are shown too.
  const t = inTerminal(
    repo,
    ["claude", "run", "--claude-bin", CLAUDE_BIN, "-v", "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"],
    env,
    { term: "xterm-256color" },
  );
  await t.waitFor("› ");
  t.type("think\r");
  await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
  t.type("copy\r");
  await t.waitFor(/turn 2 · success[^]*turn 2 saved/);
  t.type("/exit\r");
  await t.child;
  live = { id: /session (\w+):/.exec(t.text())![1]!, bytes: t.screen() };
  // Piped, with the whole corpus as the prompt: the prompt is what show and list print.
  const run = await runClaude(repo, [argMessage], { ...env, ...colour });
  expect(run.exitCode, run.stderr).toBe(0);
  piped = { id: /session (\w+):/.exec(run.stderr)![1]!, stdout: run.stdout, stderr: run.stderr };
}, 120_000);

afterAll(async () => {
  await api?.close();
});

describe("claude's words cannot drive the terminal", () => {
  it(`the corpus holds at least 20 sequences (${corpus.length})`, () => {
    expect(corpus.length).toBeGreaterThanOrEqual(20);
  });

  it("live on a terminal: streamed text, thinking, tool input and output are shown, the title and the screen untouched", async () => {
    expect(foreign(live.bytes, SCREEN, true)).toEqual([]);
    const screen = await play(live.bytes);
    expect(screen.titles).toEqual([]);
    expect(screen.buffer).toBe("normal");
    const text = screen.lines.join("\n");
    // Each sequence, shown in full where claude's answer printed it (nothing overwrote or hid it).
    for (const h of corpus) expect(text, h.name).toContain(`[${h.name}] ${shownForm(h.text)}`);
    // The thinking (✻, -v) shows the first one too, and the screen above it was never wiped.
    expect(text).toContain(`✻ [${corpus[0]!.name}] ${shownForm(corpus[0]!.text)}`);
    expect(text).toContain("› think");
    expect(text).toContain(`⎿ [${corpus[0]!.name}] ${shownForm(corpus[0]!.text)}`); // the tool's output (-v)
  });

  it("piped: the answer and the notices carry only nudge's colours", () => {
    expect(foreign(piped.stdout, SGR)).toEqual([]);
    expect(foreign(piped.stderr, SGR)).toEqual([]);
    for (const h of corpus) expect(stripSgr(piped.stdout), h.name).toContain(`[${h.name}] ${shownForm(h.text)}`);
  });

  it("session replay -v plays both sessions back inert, prompts included", async () => {
    for (const id of [live.id, piped.id]) {
      const run = await runNudge(["session", "replay", id, "-v"], { cwd: repo, env: colour });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(foreign(run.stdout, SGR)).toEqual([]);
      expect(foreign(run.stderr, SGR)).toEqual([]);
      for (const h of corpus) expect(stripSgr(run.stdout), h.name).toContain(`[${h.name}] ${shownForm(h.text)}`);
    }
  });

  it("session show and list print the prompt's sequences as text", async () => {
    for (const args of [
      ["session", "show", piped.id],
      ["session", "list"],
    ]) {
      const run = await runNudge(args, { cwd: repo, env: colour });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(foreign(run.stdout, SGR)).toEqual([]);
      expect(run.stdout).toContain(`[${corpus[0]!.name}] ${shownForm(corpus[0]!.text).slice(0, 8)}`);
    }
    // --json stays valid JSON with the very same strings, escaped.
    const json = await runNudge(["session", "show", piped.id, "--json"], { cwd: repo });
    expect(foreign(json.stdout, SGR)).toEqual([]);
    expect((JSON.parse(json.stdout) as { turns: Array<{ prompt: string | null }> }).turns[1]!.prompt).toBe(argMessage);
  });

  it("session diff: hostile file names and contents, in the patch and in --stat", async () => {
    const patch = await runNudge(["session", "diff", live.id, "2"], { cwd: repo, env: colour });
    const stat = await runNudge(["session", "diff", live.id, "2", "--stat"], { cwd: repo, env: colour });
    for (const run of [patch, stat]) {
      expect(run.exitCode, run.stderr).toBe(0);
      expect(foreign(run.stdout, SGR)).toEqual([]);
    }
    // One style in the patch's headers (not git's octal) and in --stat, C1 and bidi controls included.
    expect(stripSgr(patch.stdout)).toContain(`+++ "b/h-c1-csi-\\x9b2J"`);
    expect(stripSgr(stat.stdout)).toContain(`"h-c1-csi-\\x9b2J"`);
    expect(stripSgr(stat.stdout)).toContain(`"h-bidi-override-invoice\\u202etxt.exe"`);
    // Each h-* file holds its sequence (hostile.txt holds a NUL: git calls it binary).
    for (const h of corpus.filter((h) => !/[/\u0000]/.test(h.text)))
      expect(stripSgr(patch.stdout).split("\n"), h.name).toContain(`+${shownForm(h.text)}`);
  });

  it("rules test and error messages show the sequences a command or an argument holds", async () => {
    const rules = await runNudge(["rules", "test", "Bash", JSON.stringify({ command: message })], {
      cwd: repo,
      env: colour,
    });
    expect(foreign(rules.stdout + rules.stderr, SGR)).toEqual([]);
    expect(stripSgr(rules.stdout)).toContain(shownForm(corpus[0]!.text));
    const error = await runNudge(["session", "show", `x${argMessage}`], { cwd: repo, env: colour });
    expect(error.exitCode).toBe(1);
    expect(foreign(error.stderr, SGR)).toEqual([]);
    expect(stripSgr(error.stderr)).toContain(shownForm(corpus[0]!.text));
  });
});
