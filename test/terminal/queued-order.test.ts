/**
 * Prompts typed while a turn runs are sent one turn each, and each turn's output appears under
 * its own prompt, in order, with its end line and then its changes line after it (issue 15, item 5); a project rule's
 * decision line belongs to its turn too (item 6). Real claude, scripted API, real pty.
 */
import { mkdirSync, writeFileSync } from "node:fs";
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

/** Where each of `marks` first appears in `text`; -1 when it does not. */
function positions(text: string, marks: string[]): number[] {
  return marks.map((m) => text.indexOf(m));
}

describe("prompts typed during a turn", () => {
  it("each queued prompt's reply shows under its own turn, before that turn's end and changes lines, in order", async () => {
    const repo = await gitdir();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    api = await startScriptedApi([
      { textParts: ["slow answer, part one;", gate, " part two."] },
      { text: "reply to q1" },
      { text: "reply to q2" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("first\r");
    await t.waitFor("slow answer, part one;");
    t.type("queued q1\r");
    await t.waitFor("queued: queued q1");
    t.type("queued q2\r");
    await t.waitFor("queued: queued q2");
    release();
    await t.waitFor("turn 3 saved");
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    const text = t.text();
    const at = positions(text, [
      "part two.",
      "● turn 1 · ",
      "⎿ turn 1 saved",
      "reply to q1",
      "● turn 2 · ",
      "⎿ turn 2 saved",
      "reply to q2",
      "● turn 3 · ",
      "⎿ turn 3 saved",
    ]);
    expect(
      at.every((p) => p >= 0),
      text,
    ).toBe(true);
    expect(
      [...at].sort((a, b) => a - b),
      text,
    ).toEqual(at);
  });

  it("a rule's decision line of a queued turn comes after the previous turn's end and changes lines", async () => {
    const repo = await gitdir();
    mkdirSync(path.join(repo, ".nudge"));
    writeFileSync(
      path.join(repo, ".nudge", "rules.yaml"),
      "version: 1\nrules:\n  - id: no-rm\n    match: { tool: Bash, command: '^rm ' }\n    action: deny\n    message: do not delete\n",
    );
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    api = await startScriptedApi([
      { textParts: ["slow answer;", gate, " done."] },
      { tool: "Bash", input: { command: "rm -f nothing.txt", description: "delete" } },
      { text: "could not delete" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("first\r");
    await t.waitFor("slow answer;");
    t.type("delete it\r");
    await t.waitFor("queued: delete it");
    release();
    await t.waitFor("turn 2 saved");
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    const text = t.text();
    const at = positions(text, ["● turn 1 · ", "⎿ turn 1 saved", "⚖ ", "● turn 2 · ", "⎿ turn 2 saved"]);
    expect(
      at.every((p) => p >= 0),
      text,
    ).toBe(true);
    expect(
      [...at].sort((a, b) => a - b),
      text,
    ).toEqual(at);
  });
});
