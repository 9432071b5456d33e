/** What nudge shows of outside text: every invisible or reordering character escaped in one style. */
import { describe, expect, it } from "vitest";
import { inert, inertJson, visible, visibleJson } from "../src/base/inert-text.js";
import { requoteNames } from "../src/snapshot/patch-sections.js";

describe("visible", () => {
  it("escapes zero-width characters as it escapes U+202E, in one style; the joiners emoji need stay", () => {
    expect(visible("rm\u200b -rf\u2060 x\ufeff\u180e \u202e")).toBe("rm\\u200b -rf\\u2060 x\\ufeff\\u180e \\u202e");
    expect(visible("a\u001bb")).toBe("a\\x1bb");
    const family = "\u{1f468}\u200d\u{1f469}\u200d\u{1f467}";
    expect(visible(family)).toBe(family);
    expect(visible("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645")).toBe(
      "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
    ); // Persian keeps its ZWNJ
  });

  it("the output guard and JSON for a terminal escape them too", () => {
    expect(inert("\u001b[1mok\u001b[22m\u200b")).toBe("\u001b[1mok\u001b[22m\\u200b");
    expect(inertJson(JSON.stringify("a\u200bb"))).toBe('"a\\u200bb"');
  });
});

describe("visibleJson", () => {
  it("writes JSON's escapes of controls in visible's style, escapes the rest once, and keeps escaped backslashes", () => {
    expect(visibleJson("a\u001b[31m\r\b\f\u202e\u0085\u200b")).toBe('"a\\x1b[31m\\x0d\\x08\\x0c\\u202e\\x85\\u200b"');
    // A backslash that is text stays one escaped backslash, never read as the start of an escape.
    expect(visibleJson("C:\\u001b\\r")).toBe('"C:\\\\u001b\\\\r"');
    expect(visibleJson({ text: "x\ny\tz" }, 2)).toBe('{\n  "text": "x\\ny\\tz"\n}');
  });
});

describe("requoteNames", () => {
  it("turns git's octal-quoted names in a patch header into the name as shown everywhere else", () => {
    const shown = (p: string) => visibleJson(p);
    expect(requoteNames('diff --git "a/\\033[31m\\342\\200\\256x.txt" "b/\\033[31m\\342\\200\\256x.txt"', shown)).toBe(
      'diff --git "a/\\x1b[31m\\u202ex.txt" "b/\\x1b[31m\\u202ex.txt"',
    );
    expect(requoteNames('+++ "b/say \\"hi\\".txt"', (p) => p)).toBe('+++ b/say "hi".txt');
  });
});
