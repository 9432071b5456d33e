/**
 * Issue 15, item 4: streamed text with tabs, under a status line that is redrawn after every
 * chunk, lands where the terminal put it (real claude, scripted API, a real pty read back through
 * a headless xterm); and widths are counted per grapheme, as a terminal draws them.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fitWidth, textWidth } from "../../src/base/text-width.js";
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

const GO = [
  "```go",
  "func main() {",
  "\tif x := compute(); x > 0 {",
  '\t\tfmt.Println("positive", x)',
  "\t}",
  "\tab\tcd\te",
  "}",
  "```",
].join("\n");

describe("tabs and wide characters on a live terminal", () => {
  it("a Go block with tab indents, streamed 7 characters at a time under the status line, shows as the terminal's tab stops put it", async () => {
    const repo = await gitdir();
    const chunks = GO.match(/[\s\S]{1,7}/g)!;
    api = await startScriptedApi([{ textParts: chunks }]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("show me go\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    const lines = (await render(t.screen(), 80, 40)).lines;
    const expected = [
      "func main() {",
      "        if x := compute(); x > 0 {",
      '                fmt.Println("positive", x)',
      "        }",
      "        ab      cd      e",
      "}",
    ];
    const start = lines.indexOf("func main() {");
    expect(lines.slice(start, start + expected.length), lines.join("\n")).toEqual(expected);
  });

  it("counts an emoji of several code points (skin tone, ZWJ family, flag, VS16) as the two columns a terminal draws", () => {
    expect(textWidth("a👍🏽b")).toBe(4);
    expect(textWidth("👨‍👩‍👧")).toBe(2);
    expect(textWidth("🇫🇷")).toBe(2);
    expect(textWidth("❤️")).toBe(2);
    expect(textWidth("中文")).toBe(4);
    expect(textWidth("e\u0301")).toBe(1); // e + combining acute
    expect(fitWidth("👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧", 5)).toBe("👨‍👩‍👧👨‍👩‍👧…"); // never cut inside a grapheme
  });
});
