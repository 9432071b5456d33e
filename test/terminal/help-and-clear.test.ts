/**
 * /help lists the prompt's keys on a terminal and says that claude's own commands go through;
 * claude's /clear is not silent: nudge says claude starts afresh and what that means for /rewind.
 * Real claude, scripted API; piped and on a real pty.
 */
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

const PASS_THROUGH =
  "any other line, claude's own commands (/clear, /cost, /model …) included, goes to claude as it is";

describe("/help and /clear", () => {
  it("piped: /help says claude's commands pass through; /clear says what it means", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "ONE" }, { text: "TWO" }]);
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: claudeEnv(api, path.join(tempDir(), "cfg")),
      input: "/help\nhi\n/clear\nagain\n",
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(PASS_THROUGH);
    expect(run.stderr).not.toContain("keys:"); // no keys without a terminal
    expect(run.stderr).toMatch(
      /turn 1 saved[^]*⎿ \/clear: claude starts a new conversation without the turns before it; nudge keeps recording them in this session, and \/rewind <n> to one of them brings back that turn's conversation and code[^]*turn 2 ·/,
    );
    // claude did start afresh: the prompt after /clear went without the first exchange.
    const last = api.mainLoopRequests().at(-1)!.body.messages as unknown[];
    expect(JSON.stringify(last)).not.toContain("ONE");
  });

  it("on a terminal: /help lists the keys", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
    );
    await t.waitFor("› ");
    t.type("/help\r");
    await t.waitFor("Ctrl-Z suspend");
    // Lines wider than the terminal wrap between words: read as one run of words.
    const shown = t.text().replace(/\s+/g, " ");
    expect(shown).toContain(PASS_THROUGH);
    expect(shown).toMatch(/keys: Enter send.*Shift-Tab next permission mode · Esc or Ctrl-C interrupt the turn/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
  });
});
