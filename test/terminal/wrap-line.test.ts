/**
 * A whole line of nudge's wider than the terminal is cut into rows at word boundaries, each row's
 * colour switched off before its line end and taken up again after the next row's indent.
 */
import { describe, expect, it } from "vitest";
import { makeStyle } from "../../src/terminal/style.js";
import { wrapLine } from "../../src/terminal/wrap-lines.js";

const { dim } = makeStyle(true);

describe("wrapLine", () => {
  it("a line that fits is left as it is", () => {
    expect(wrapLine(dim("  ⎿ short words"), 20)).toBe(dim("  ⎿ short words"));
  });

  it("a styled line: rows end between words, under the text after its marker, each styled on its own", () => {
    const rows = wrapLine(dim("  ⎿ alpha bravo charlie delta echo"), 20).split("\n");
    expect(rows).toEqual([
      "\u001b[2m  ⎿ alpha bravo\u001b[0m",
      "    \u001b[2mcharlie delta\u001b[0m",
      "    \u001b[2mecho\u001b[22m",
    ]);
  });

  it("a word wider than a row starts a row and is cut where each row ends; CJK text between characters", () => {
    expect(wrapLine("x abcdefghijklmnopqrstuvwxyz", 10).split("\n")).toEqual([
      "x",
      "abcdefghi",
      "jklmnopqr",
      "stuvwxyz",
    ]);
    expect(wrapLine("日本語の文章を折り返す", 10).split("\n")).toEqual(["日本語の", "文章を折", "り返す"]);
  });
});
