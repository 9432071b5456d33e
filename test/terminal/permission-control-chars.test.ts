/**
 * A permission question shows control characters of a change visibly, never as terminal commands.
 * Found by black-box QA of the built CLI (real claude binary, scripted Messages API, real temp
 * git repositories).
 */
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

describe("control characters in a permission question", () => {
  it("a permission question shows control characters of the change it asks about visibly, never as terminal commands", async () => {
    const repo = await gitdir({ "notes.txt": "keep this line\n" });
    // An edit whose new text carries terminal escapes: "erase the line above" would hide the
    // removed line of the diff the user is approving, colour codes would restyle it.
    const sneaky = "\u001b[1A\u001b[2Kharmless\u001b[31m";
    api = await startScriptedApi([
      {
        tool: "Edit",
        input: { file_path: path.join(repo, "notes.txt"), old_string: "keep this line", new_string: sneaky },
      },
      { text: "done" },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
    );
    await t.waitFor("› ");
    t.type("edit it\r");
    await t.waitFor(/\? Edit\(notes\.txt\)[^]*Allow\?/);
    const raw = t.screen();
    t.type("n\r");
    await t.waitFor("Reason for claude");
    t.type("\r");
    await t.waitFor(/turn 1 · [^]*turn 1 saved/);
    t.type("/exit\r");
    await t.child;
    expect(raw).toContain("harmless");
    expect(raw).not.toContain("\u001b[1A\u001b[2Kharmless");
    expect(raw).not.toContain("harmless\u001b[31m");
  }, 20_000);
});
