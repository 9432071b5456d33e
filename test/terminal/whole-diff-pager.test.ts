/**
 * Issue 21: a permission question cuts a long diff at the screen's height, and one key (Ctrl-O,
 * named on the question) shows it whole in the pager; quitting the pager brings back the same
 * question, answerable, with the terminal as nudge had it (raw mode: Esc still answers at once).
 * The real claude binary, the scripted API, `less` as the pager, on a real pseudo-terminal.
 */
import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { render } from "./pty.js";

const SIZE = { cols: 80, rows: 24 };
const CONTENT = Array.from({ length: 200 }, (_, i) => `const line${i + 1} = ${i + 1};\n`).join("");

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("the whole diff of a permission question", () => {
  it("Ctrl-O opens the cut diff whole in the pager; quitting it returns to the question, which answers as before", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "big.ts"), content: CONTENT } },
      { tool: "Write", input: { file_path: path.join(repo, "small.txt"), content: "hi\n" } },
      { text: "DONE" },
    ]);
    // PAGER named, LESS left unset (undefined drops it from the environment): nudge's own LESS applies.
    const env = { ...claudeEnv(api, path.join(tempDir(), "cfg")), PAGER: "less", LESS: undefined as unknown as string };
    const t = inTerminal(repo, ["claude", "run", "--claude-bin", CLAUDE_BIN], env, {
      term: "xterm-256color",
      color: true,
      size: SIZE,
    });
    const screen = async () => (await render(t.screen(), SIZE.cols, SIZE.rows)).lines;
    /** The rows a person sees now (the terminal's height, from the bottom of what was written). */
    const visibleRows = async () => (await screen()).slice(-SIZE.rows);
    const until = async (ok: (rows: string[]) => boolean, what: string) => {
      const start = Date.now();
      while (!ok(await visibleRows())) {
        if (Date.now() - start > 20_000)
          throw new Error(`timed out waiting for ${what}:\n${(await visibleRows()).join("\n")}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    await t.waitFor("› ");
    t.type("write big.ts\r");
    await t.waitFor("Ctrl-O: whole diff"); // the answer's line, drawn after the question's lines
    // The screen as drawn once that line is on it (under load the text arrives before a redraw ends).
    await until((rows) => rows.some((r) => r.startsWith("Allow?")), "the question's answer line on screen");
    // Cut at the screen's height: the question's title is still in sight, the end of the file is not.
    const asked = await visibleRows();
    expect(
      asked.some((r) => r.startsWith("? Write(big.ts)")),
      asked.join("\n"),
    ).toBe(true);
    expect(asked.join("\n")).toMatch(/… \d+ more lines \(Ctrl-O shows the whole diff\)/);
    // The answer's line, wrapped between words, the status line under it.
    expect(
      asked
        .slice(
          asked.findLastIndex((r) => r.startsWith("Allow?")),
          -1,
        )
        .join(" "),
    ).toMatch(/^Allow\? \[y\]es .* · Ctrl-O: whole diff *$/);
    expect(asked.join("\n")).not.toContain("line200");

    t.type("\u000f"); // Ctrl-O
    await until(
      (rows) =>
        rows.some((r) => r.includes("+const line1 = 1;")) && !rows.some((r) => r.includes("Ctrl-O: whole diff")),
      "the pager",
    );
    const before = t.screen().length;
    t.type("G"); // less: to the end
    await until((rows) => rows.some((r) => r.includes("+const line200 = 200;")), "the end of the diff in the pager");
    t.type("q");
    await until((rows) => rows.at(-2)?.endsWith("Ctrl-O: whole diff ") === true, "the question again"); // the status line under it
    const back = await visibleRows();
    // The same question, where it was (a status line's clock may have ticked meanwhile).
    const clockless = (rows: string[]) =>
      rows.map((r) => r.replace(/\b\d+(\.\d+)?m?s\b/g, "<t>").replace(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/, "<spin>"));
    expect(clockless(back)).toEqual(clockless(asked));
    // nudge has the terminal back: bracketed paste asked for again, and keys answer the question.
    expect(t.screen().slice(before)).toContain("\u001b[?2004h");

    t.type("y\r");
    await t.waitFor("✓ allowed Write(big.ts)");
    // The next question's diff fits: no key offered. Esc answers it at once, as only raw mode allows.
    await t.waitFor("? Write(small.txt)");
    expect(t.text().split("? Write(small.txt)")[1]).not.toContain("Ctrl-O");
    t.type("\u001b");
    await t.waitFor("✗ denied Write(small.txt)");
    await t.waitFor("turn 1 · success");
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    expect(readFileSync(path.join(repo, "big.ts"), "utf8")).toBe(CONTENT);
    expect(existsSync(path.join(repo, "small.txt"))).toBe(false);
  });
});
