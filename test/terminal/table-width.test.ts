/** Tables (session list and the like) line up by the columns text takes on a terminal: CJK characters take two. */
import { describe, expect, it } from "vitest";
import { oneLine } from "../../src/base/format.js";
import { printTable } from "../../src/terminal/output.js";
import { textWidth } from "../../src/base/text-width.js";

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

  it("keeps a row on one line when a cell holds a line break (a folder name from a transcript)", () => {
    let out = "";
    printTable(["PROJECT", "SESSIONS"], [["/tmp/a\nb", "2"]], (t) => (out += t));
    expect(out).toBe("PROJECT    SESSIONS\n/tmp/a\\nb  2\n");
  });
});

describe("oneLine", () => {
  it("cuts a CJK prompt at the columns it takes, not the characters it has", () => {
    const cut = oneLine("日本語でテストを書いてください、お願いします", 30);
    expect(textWidth(cut)).toBeLessThanOrEqual(30);
    expect(cut.endsWith("…")).toBe(true);
    expect(cut.startsWith("日本語でテスト")).toBe(true);
  });

  it("never cuts an emoji made of several code points in half", () => {
    const cut = oneLine("ab👨‍👩‍👧 family", 4);
    expect(cut).toBe("ab…");
    expect(oneLine("plain ascii text", 8)).toBe("plain a…");
  });
});
