/**
 * Issue 21: the prompts of an earlier `nudge claude run` in the repository are reachable in the
 * next one, with ↑ and with Ctrl-R, on a real terminal with the real claude binary.
 */
import { readFileSync } from "node:fs";
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

const UP = "\u001b[A";
const CTRL_R = "\u0012";
const CTRL_U = "\u0015";

/** The text of the last user message of the last main-loop request. */
function lastPrompt(a: ScriptedApi): string {
  const messages = a.mainLoopRequests().at(-1)!.body.messages as Array<{
    role: string;
    content: string | Array<{ type: string; text?: string }>;
  }>;
  const content = messages.filter((m) => m.role === "user").at(-1)!.content;
  return typeof content === "string" ? content : content.map((c) => c.text ?? "").join("");
}

describe("prompt history across runs", () => {
  it("↑ and Ctrl-R find a prompt typed in the run before", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const env = claudeEnv(api, path.join(tempDir(), "cfg"));
    const first = inTerminal(repo, ["claude", "run", "--claude-bin", CLAUDE_BIN], env, { term: "xterm-256color" });
    await first.waitFor("› ");
    first.type("alpha prompt\r");
    await first.waitFor(/turn 1 · success[^]*turn 1 saved/);
    first.type("beta prompt\r");
    await first.waitFor(/turn 2 · success[^]*turn 2 saved/);
    first.type("/exit\r");
    expect((await first.child).exitCode, first.text()).toBe(0);

    const second = inTerminal(repo, ["claude", "run", "--claude-bin", CLAUDE_BIN], env, { term: "xterm-256color" });
    await second.waitFor("› ");
    second.type(UP); // the last thing typed: /exit
    await second.waitFor("› /exit");
    second.type(UP);
    await second.waitFor("› beta prompt");
    second.type(CTRL_U + CTRL_R + "alp");
    await second.waitFor("(reverse-i-search)'alp': alpha prompt");
    second.type("\r");
    await second.waitFor(/turn 1 · success[^]*turn 1 saved/);
    expect(lastPrompt(api)).toContain("alpha prompt");
    second.type("/exit\r");
    expect((await second.child).exitCode, second.text()).toBe(0);
    // Kept in the store, one line per prompt.
    const kept = readFileSync(path.join(repo, ".git", "nudge", "prompt-history.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { prompt: string }).prompt);
    expect(kept).toEqual(["alpha prompt", "beta prompt", "/exit", "alpha prompt", "/exit"]);
  });
});
