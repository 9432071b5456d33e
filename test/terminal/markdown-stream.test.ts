/** The streaming markdown renderer on its own: what each construct looks like, and that where the stream is cut never changes it. */
import { describe, expect, it } from "vitest";
import { MarkdownStream } from "../../src/terminal/markdown/markdown-stream.js";
import { stripAnsi, textWidth } from "../../src/base/text-width.js";

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
      "Some bold, italic, code, gone and docs",
      "(https://example.com/x); snake_case_name stays.",
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
    // The plain words came before the line was complete, one whole word at a time (the space after each waits for the next).
    expect(writes.slice(0, 4)).toEqual(["Hello", " there,", " this", " is"]);
    expect(writes.slice(4)).toEqual([" \u001b[1mimportant\u001b[22m indeed.\n"]);
  });

  it("breaks a Japanese sentence without spaces between its characters, never before a closing mark", () => {
    const sentence = "これは日本語の長い文章で、空白がありません。次の文も続きます。";
    const out = stripAnsi(rendered(`ok ${sentence}\n`, Infinity, 24).out)
      .split("\n")
      .filter(Boolean);
    // The first row is filled (the sentence does not jump whole to the next one), and nothing is lost.
    expect(out[0]).toBe("ok これは日本語の長い文");
    expect(out.join("")).toBe(`ok ${sentence}`);
    for (const row of out) {
      expect(textWidth(row), row).toBeLessThanOrEqual(23);
      expect(row).not.toMatch(/^[、。]/);
    }
    for (const size of [1, 2, 7])
      expect(rendered(`ok ${sentence}\n`, size, 24).out).toBe(rendered(`ok ${sentence}\n`, Infinity, 24).out);
  });

  it("wraps prose at word boundaries, CJK and emoji two columns each, lists and quotes under their text", () => {
    const words = "hello there 🎉🎉 and some English words, with **bold** in between all of them".split(" ");
    const text = `${words.join(" ")}\n- ${words.join(" ")}\n> ${words.join(" ")}\n`;
    const out = stripAnsi(rendered(text, Infinity, 24).out).split("\n");
    for (const row of out) expect(textWidth(row), row).toBeLessThanOrEqual(23);
    const bullet = out.findIndex((l) => l.startsWith("• "));
    const bar = out.findIndex((l) => l.startsWith("│ "));
    const [para, item, quote] = [out.slice(0, bullet), out.slice(bullet, bar), out.slice(bar).filter(Boolean)];
    expect(para).toEqual(["hello there 🎉🎉 and", "some English words,", "with bold in between", "all of them"]);
    // No word is cut: the rows, joined, are the words again; a list item's rows sit under its text, a quote's keep its bar.
    const plainWords = words.map((w) => w.replace(/\*\*/g, "")).join(" ");
    expect(para.join(" ")).toBe(plainWords);
    expect(
      item.map((l, i) => (i === 0 ? l.slice(2) : (expect(l.startsWith("  ")).toBe(true), l.slice(2)))).join(" "),
    ).toBe(plainWords);
    expect(quote.map((l) => (expect(l.startsWith("│ ")).toBe(true), l.slice(2))).join(" ")).toBe(plainWords);
    // Where the stream is cut never moves a break.
    for (const size of [1, 3, 5]) expect(rendered(text, size, 24).out).toBe(rendered(text, Infinity, 24).out);
  });

  it("cuts a word wider than the terminal where the row ends", () => {
    const out = stripAnsi(rendered(`see ${"x".repeat(50)} ok\n`, Infinity, 21).out).split("\n");
    expect(out).toEqual(["see", "x".repeat(20), "x".repeat(20), "x".repeat(10) + " ok", ""]);
  });

  it("renders emphasis that spans a paragraph's line break, and shows the markers of one never closed", () => {
    const out = rendered("This is **bold\nstill bold** and *it\nx* end.\n", 5).out;
    expect(out).toBe(rendered("This is **bold\nstill bold** and *it\nx* end.\n").out);
    expect(out).toBe(
      "This is \u001b[1mbold\u001b[22m\n\u001b[1mstill bold\u001b[22m and \u001b[3mit\u001b[23m\n\u001b[3mx\u001b[23m end.\n",
    );
    expect(stripAnsi(rendered("a **never\nclosed\n\nnext\n").out)).toBe("a **never\nclosed\n\nnext\n");
    // A list after it ends the paragraph: the held line is shown as it is, then the list.
    expect(stripAnsi(rendered("a **open\n- item\n").out)).toBe("a **open\n• item\n");
  });

  it("fits a table wider than the terminal to it", () => {
    const table = "| a | b |\n|---|---|\n| " + "x".repeat(80) + " | " + "y".repeat(80) + " |";
    for (const line of rendered(table, Infinity, 40).out.split("\n")) expect(textWidth(line)).toBeLessThanOrEqual(39);
  });

  it("lets no control character of claude's through, in text, code or a table", () => {
    const out = rendered(
      "a \u001b]0;x\u0007 **b\u001b[2J**\n```js\nx = '\u001b[31m'\n```\n| c\u009b |\n|---|\n| d |",
    ).out;
    expect(out.replace(/\u001b\[[0-9;]*m/g, "")).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
});
