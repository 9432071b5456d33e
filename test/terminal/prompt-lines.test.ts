/**
 * What stays in the conversation around a prompt, on a real terminal with the real claude: a
 * prompt given on the command line is shown as `› prompt` like a typed one; the permission mode is
 * said once, under the first prompt it applies to, not after every prompt; and how full claude's
 * context is shows under the prompt line, against the window claude reports (1M here), not the
 * model name's.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { screenWhen } from "./pty.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const size = { cols: 100, rows: 40 };

describe("the lines around a prompt", () => {
  it("echoes the command line's prompt, says the mode once, and shows the reported context window at the prompt", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "FIRST ANSWER" }, { text: "SECOND ANSWER" }]);
    const args = [
      "claude",
      "run",
      "what is here?",
      "--permission-mode",
      "acceptEdits",
      "--model",
      "claude-sonnet-4-5[1m]",
      "--claude-bin",
      CLAUDE_BIN,
    ];
    const t = inTerminal(repo, args, claudeEnv(api, path.join(tempDir(), "cfg")), { term: "xterm-256color", size });
    await t.waitFor(/turn 1 saved[^]*› /);
    t.type("and now?\r");
    await t.waitFor(/turn 2 saved[^]*› /);
    const modeLine = /⏵⏵ accept edits on \(shift-tab to cycle\) · context \d+k\/1M \(\d+%\)/;
    const underPrompt = (rows: string[]) => rows.slice(rows.findLastIndex((l) => l.startsWith("› ")) + 1).join("\n");
    const lines = await screenWhen(
      t.screen,
      size,
      (rows) => modeLine.test(underPrompt(rows)),
      "the mode line under the prompt",
    );
    const prompt = lines.findLastIndex((l) => l.startsWith("› "));
    // Under the live prompt line: the mode and the context, against claude's reported window.
    expect(lines.slice(prompt + 1).join("\n")).toMatch(modeLine);
    const conversation = lines.slice(0, prompt);
    expect(conversation).toContain("› what is here?");
    expect(conversation).toContain("› and now?");
    expect(conversation.filter((l) => l.includes("accept edits on"))).toEqual(["  ⏵⏵ accept edits on"]);
    expect(conversation.indexOf("  ⏵⏵ accept edits on")).toBe(conversation.indexOf("› what is here?") + 1);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
  });
});
