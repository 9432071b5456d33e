/**
 * Issue 21: claude's markdown rendered as it streams, through `nudge claude run` on a real
 * terminal with the real claude binary, the screen read through a headless xterm. With colour:
 * no `**` or fence markers, bold is bold, the code coloured, and the same final screen whether the
 * answer streamed in 5-byte pieces or in one; with NO_COLOR: the markdown as claude wrote it.
 * `session replay` renders it the same way.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { render, styleOf } from "./pty.js";

const ANSWER = [
  "Here is **bold** text and `inline code`.",
  "",
  "- first point",
  "- second point",
  "",
  "```ts",
  "const answer: number = 42; // the answer",
  "```",
  "That is all.",
].join("\n");

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** Ask once on a terminal; the raw bytes written, and the rows between the prompt and the turn's end line. */
async function ask(color: boolean, chunk?: number, answer = ANSWER, cols = 80) {
  const repo = await gitdir();
  api = await startScriptedApi([{ text: answer }], { chunk });
  const size = cols === 80 ? undefined : { cols, rows: 24 };
  const t = inTerminal(
    repo,
    ["claude", "run", "--claude-bin", CLAUDE_BIN],
    claudeEnv(api, path.join(tempDir(), "cfg")),
    { term: "xterm-256color", color, size },
  );
  await t.waitFor("› ");
  t.type("show me\r");
  await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
  t.type("/exit\r");
  expect((await t.child).exitCode, t.text()).toBe(0);
  await api.close();
  api = undefined;
  const { lines } = await render(t.screen(), cols, 24);
  const from = lines.findIndex((l) => l.includes("show me"));
  const to = lines.findIndex((l) => l.includes("turn 1 · success"));
  return {
    repo,
    bytes: t.screen(),
    answer: lines.slice(from + 1, to).filter((l) => !l.startsWith("● ") && l.trim() !== ""),
  };
}

describe("markdown on the terminal", () => {
  it("renders bold, a list and highlighted code as it streams, the same in 5-byte pieces as in one", async () => {
    const whole = await ask(true);
    expect(whole.answer).toEqual([
      "Here is bold text and inline code.",
      "• first point",
      "• second point",
      "const answer: number = 42; // the answer",
      "That is all.",
    ]);
    expect(await styleOf(whole.bytes, 80, 24, "bold text")).toMatchObject({ bold: true });
    expect(await styleOf(whole.bytes, 80, 24, "const answer")).toMatchObject({ defaultColour: false }); // a keyword's colour
    expect(await styleOf(whole.bytes, 80, 24, "42;")).toMatchObject({ defaultColour: false });
    expect(await styleOf(whole.bytes, 80, 24, "Here is")).toMatchObject({ bold: false, defaultColour: true });

    const pieces = await ask(true, 5);
    expect(pieces.answer).toEqual(whole.answer);
  });

  it("wraps a long paragraph at word boundaries at the terminal's width, CJK two columns a character, the same in 5-byte pieces", async () => {
    const words =
      "nudge 日本語の 文章を 表示します and wraps **bold words** at the edge of a narrow terminal, 漢字 included, never cutting a word".split(
        " ",
      );
    const whole = await ask(true, undefined, words.join(" "), 40);
    // Every row ends between words: joined again they are the paragraph, the markers gone.
    expect(whole.answer.join(" ")).toBe(words.join(" ").replace(/\*\*/g, ""));
    expect(whole.answer.length).toBeGreaterThan(2);
    expect(whole.answer[0]).toBe("nudge 日本語の 文章を 表示します and"); // 37 columns: CJK counted as 2 each
    const pieces = await ask(true, 5, words.join(" "), 40);
    expect(pieces.answer).toEqual(whole.answer);
  });

  it("with NO_COLOR the markdown is shown as claude wrote it", async () => {
    const plain = await ask(false);
    expect(plain.answer).toEqual(ANSWER.split("\n").filter((l) => l.trim() !== ""));
  });

  it("session replay renders it as the live run did; piped without colour, as written", async () => {
    const { repo } = await ask(true);
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{
      id: string;
    }>;
    const coloured = await runNudge(["session", "replay", session!.id], {
      cwd: repo,
      env: { NO_COLOR: "", FORCE_COLOR: "1" },
    });
    expect(coloured.exitCode, coloured.stderr).toBe(0);
    const { lines } = await render(coloured.stdout.replace(/\n/g, "\r\n"), 80, 40);
    expect(lines).toContain("• first point");
    expect(lines).toContain("const answer: number = 42; // the answer");
    expect(coloured.stdout).not.toContain("**");
    expect(coloured.stdout).not.toContain("```");
    expect(await styleOf(coloured.stdout.replace(/\n/g, "\r\n"), 80, 40, "const answer")).toMatchObject({
      defaultColour: false,
    });
    const piped = await runNudge(["session", "replay", session!.id], { cwd: repo });
    expect(piped.stdout).toContain("Here is **bold** text and `inline code`.");
    expect(piped.stdout).toContain("```ts\nconst answer");
  });
});
