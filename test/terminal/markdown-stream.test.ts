/** The streaming markdown renderer on its own: what each construct looks like, and that where the stream is cut never changes it. */
import { describe, expect, it } from "vitest";
import { MarkdownStream } from "../../src/terminal/markdown/markdown-stream.js";
import { stripAnsi, textWidth } from "../../src/terminal/text-width.js";

function rendered(text: string, size = Infinity, columns = 60): { out: string; writes: string[] } {
  const writes: string[] = [];
  const md = new MarkdownStream({ write: (t) => void writes.push(t), columns: () => columns });
  for (let i = 0; i < text.length; i += size) md.push(text.slice(i, Math.min(text.length, i + size)));
  md.end();
  return { out: writes.join(""), writes };
}

const DOC = [
  "# Plan",
  "Some **bold**, *italic*, `code`, ~~gone~~ and [docs](https://example.com/x); snake_case_name stays.",
  "1. first",
  "   - nested [ ] no",
  "- [x] done",
  "> a *quote*",
  "",
  "| Name | Size |",
  "|:-----|-----:|",
  "| 日本語 | 1 |",
  "| b | 22 |",
  "***",
  "```python",
  '"""a docstring',
  'over lines"""',
  "def f(x): return x  # note",
  "```",
  "The end, with a trailing word",
].join("\n");

describe("MarkdownStream", () => {
  it("renders the same whatever size the pieces come in", () => {
    const whole = rendered(DOC).out;
    for (const size of [1, 2, 3, 5, 7, 13, 64]) expect(rendered(DOC, size).out, `pieces of ${size}`).toBe(whole);
  });

  it("shows the constructs without their markers", () => {
    const lines = stripAnsi(rendered(DOC).out).split("\n");
    expect(lines).toEqual([
      "Plan",
      "Some bold, italic, code, gone and docs (https://example.com/x); snake_case_name stays.",
      "1. first",
      "   • nested [ ] no",
      "• ☑ done",
      "│ a quote",
      "",
      "┌────────┬──────┐",
      "│ Name   │ Size │",
      "├────────┼──────┤",
      "│ 日本語 │    1 │",
      "│ b      │   22 │",
      "└────────┴──────┘",
      "─".repeat(59),
      '"""a docstring',
      'over lines"""',
      "def f(x): return x  # note",
      "The end, with a trailing word",
    ]);
  });

  it("colours a comment or string that spans lines on each of its lines", () => {
    const out = rendered(DOC).out.split("\n");
    const second = out.find((l) => stripAnsi(l) === 'over lines"""')!;
    expect(second.startsWith("\u001b[")).toBe(true);
  });

  it("shows a paragraph's plain words as they are typed, the markdown in it once its line is complete", () => {
    const { writes } = rendered("Hello there, this is **important** indeed.\n", 4);
    // The plain words came before the line was complete, one whole word at a time.
    expect(writes.slice(0, 4)).toEqual(["Hello ", "there, ", "this ", "is "]);
    expect(writes.slice(4)).toEqual(["\u001b[1mimportant\u001b[22m indeed.\n"]);
  });

  it("fits a table wider than the terminal to it", () => {
    const table = "| a | b |\n|---|---|\n| " + "x".repeat(80) + " | " + "y".repeat(80) + " |";
    for (const line of rendered(table, Infinity, 40).out.split("\n")) expect(textWidth(line)).toBeLessThanOrEqual(39);
  });

  it("lets no control character of claude's through, in text, code or a table", () => {
    const out = rendered("a \u001b]0;x\u0007 **b\u001b[2J**\n```js\nx = '\u001b[31m'\n```\n| c\u009b |\n|---|\n| d |").out;
    expect(out.replace(/\u001b\[[0-9;]*m/g, "")).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
});
