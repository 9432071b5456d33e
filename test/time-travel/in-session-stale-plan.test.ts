/**
 * An in-session /rewind, /fork or /undo shows a plan and waits for a person: what they answer
 * is about the work tree they saw. A file changed meanwhile refuses the apply, as the CLI's
 * and the page's confirmations do; nothing of the user's is overwritten or left out of the plan.
 * The CLI's own y/N keeps the same rule. Real claude, scripted API, nudge's terminal on a real pty.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { recordSession } from "../support/record.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const CHANGED = "the work tree changed while waiting for your answer; nothing was changed";

async function session(repo: string, steps: Parameters<typeof startScriptedApi>[0], prompts: string[]) {
  api = await startScriptedApi(steps);
  const t = inTerminal(
    repo,
    ["claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"],
    claudeEnv(api, path.join(tempDir(), "cfg")),
  );
  await t.waitFor("› ");
  for (const [i, prompt] of prompts.entries()) {
    t.type(`${prompt}\r`);
    await t.waitFor(`turn ${i + 1} saved`, 60_000);
  }
  return t;
}

describe("an in-session plan that went stale while asking", () => {
  it("/rewind: a file the plan rewrites, edited before the answer, is kept and the rewind refused", async () => {
    const repo = await gitdir();
    const file = path.join(repo, "a.txt");
    const t = await session(
      repo,
      [
        { tool: "Write", input: { file_path: file, content: "one\n" } },
        { text: "ONE" },
        { tool: "Write", input: { file_path: file, content: "two\n" } },
        { text: "TWO" },
      ],
      ["write one", "write two"],
    );
    t.type("/rewind 1\r");
    await t.waitFor("rewind to turn 1? [y/N]");
    writeFileSync(file, "mine\n");
    t.type("y\r");
    await t.waitFor(CHANGED);
    // The hint is the next line: written apart, it may arrive a moment after.
    await t.waitFor("hint: run the /rewind again to see the new plan");
    expect(readFileSync(file, "utf8")).toBe("mine\n");
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
  }, 120_000);

  it("/rewind: a file made before the answer in a folder the plan replaces is not lost", async () => {
    const repo = await gitdir();
    const t = await session(
      repo,
      [
        { tool: "Write", input: { file_path: path.join(repo, "out"), content: "artifact\n" } },
        { text: "ONE" },
        { tool: "Bash", input: { command: "rm out && mkdir out && echo x > out/x.txt", description: "folder" } },
        { text: "TWO" },
      ],
      ["make out", "make it a folder"],
    );
    t.type("/rewind 1\r");
    await t.waitFor("rewind to turn 1? [y/N]");
    mkdirSync(path.join(repo, "out"), { recursive: true });
    writeFileSync(path.join(repo, "out", "mine.txt"), "mine\n");
    t.type("y\r");
    await t.waitFor(CHANGED);
    expect(existsSync(path.join(repo, "out", "mine.txt"))).toBe(true);
    expect(readFileSync(path.join(repo, "out", "mine.txt"), "utf8")).toBe("mine\n");
    // Asked again, the plan now names the user's file, and the rewind goes ahead with it backed up.
    t.type("/rewind 1\r");
    await t.waitFor(/rewind to turn 1\? \[y\/N\][^]*delete +out\/mine\.txt[^]*rewind to turn 1\? \[y\/N\]/);
    t.type("y\r");
    await t.waitFor("rewound to turn 1");
    expect(readFileSync(path.join(repo, "out"), "utf8")).toBe("artifact\n");
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
  }, 120_000);

  it("/undo: a file the undo rewrites, edited before the answer, is kept and the undo refused", async () => {
    const repo = await gitdir();
    const file = path.join(repo, "a.txt");
    const t = await session(
      repo,
      [
        { tool: "Write", input: { file_path: file, content: "one\n" } },
        { text: "ONE" },
        { tool: "Write", input: { file_path: file, content: "two\n" } },
        { text: "TWO" },
      ],
      ["write one", "write two"],
    );
    t.type("/rewind 1\r");
    await t.waitFor("rewind to turn 1? [y/N]");
    t.type("y\r");
    await t.waitFor("rewound to turn 1");
    t.type("/undo\r");
    await t.waitFor(/\/undo\n[^]*\? \[y\/N\]/);
    writeFileSync(file, "mine\n");
    t.type("y\r");
    await t.waitFor(CHANGED);
    // The hint is the next line: written apart, it may arrive a moment after.
    await t.waitFor("hint: run the /undo again to see the new plan");
    expect(readFileSync(file, "utf8")).toBe("mine\n");
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
  }, 120_000);
});

describe("the CLI's y/N, same rule", () => {
  it("session rewind on a terminal: a file edited before the answer refuses it, exit 1; answered again, it goes ahead", async () => {
    const repo = await gitdir();
    const file = path.join(repo, "a.txt");
    const recorded = await recordSession(
      repo,
      [
        { tool: "Write", input: { file_path: file, content: "one\n" } },
        { text: "ONE" },
        { tool: "Write", input: { file_path: file, content: "two\n" } },
        { text: "TWO" },
      ],
      ["write one", "write two"],
    );
    await recorded.api.close();
    const stale = inTerminal(repo, ["session", "rewind", recorded.id, "1"]);
    await stale.waitFor(`rewind ${recorded.id} to turn 1? [y/N]`);
    writeFileSync(file, "mine\n");
    stale.type("y\r");
    expect((await stale.child).exitCode).toBe(1);
    expect(stale.text()).toContain(`error: ${CHANGED}`);
    expect(stale.text()).toContain("hint: run the rewind again to see the new plan");
    expect(readFileSync(file, "utf8")).toBe("mine\n");

    const fresh = inTerminal(repo, ["session", "rewind", recorded.id, "1"]);
    await fresh.waitFor(`rewind ${recorded.id} to turn 1? [y/N]`);
    fresh.type("y\r");
    expect((await fresh.child).exitCode, fresh.text()).toBe(0);
    expect(readFileSync(file, "utf8")).toBe("one\n");
  }, 120_000);
});
