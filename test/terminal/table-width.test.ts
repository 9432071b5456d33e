/** Tables (session list and the like) line up by the columns text takes on a terminal: CJK characters take two. */
import { describe, expect, it } from "vitest";
import { oneLine } from "../../src/base/format.js";
import { printTable } from "../../src/terminal/output.js";
import { textWidth } from "../../src/terminal/text-width.js";

describe("printTable with wide characters", () => {
  it("lines up the column after a CJK prompt with the one after an ASCII prompt", () => {
    let out = "";
    printTable(
      ["ID", "FIRST PROMPT", "LAST PROMPT"],
      [
        ["aaaaaaaaaa", oneLine("日本語でテストを書いてください、お願いします", 30), "x"],
        ["bbbbbbbbbb", oneLine("write the tests", 30), "y"],
      ],
      (t) => (out += t),
    );
    const lines = out.trimEnd().split("\n");
    const column = (line: string, text: string) => textWidth(line.slice(0, line.lastIndexOf(text)));
    expect(column(lines[1]!, "x")).toBe(column(lines[2]!, "y"));
    expect(column(lines[0]!, "LAST PROMPT")).toBe(column(lines[2]!, "y"));
  });
});
