/** What nudge shows of outside text: every invisible or reordering character escaped in one style. */
import { describe, expect, it } from "vitest";
import { inert, inertJson, visible } from "../src/inert-text.js";

describe("visible", () => {
  it("escapes zero-width characters as it escapes U+202E, in one style; the joiners emoji need stay", () => {
    expect(visible("rm\u200b -rf\u2060 x\ufeff\u180e \u202e")).toBe("rm\\u200b -rf\\u2060 x\\ufeff\\u180e \\u202e");
    expect(visible("a\u001bb")).toBe("a\\x1bb");
    const family = "\u{1f468}\u200d\u{1f469}\u200d\u{1f467}";
    expect(visible(family)).toBe(family);
    expect(visible("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645")).toBe("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"); // Persian keeps its ZWNJ
  });

  it("the output guard and JSON for a terminal escape them too", () => {
    expect(inert("\u001b[1mok\u001b[22m\u200b")).toBe("\u001b[1mok\u001b[22m\\u200b");
    expect(inertJson(JSON.stringify("a\u200bb"))).toBe('"a\\u200bb"');
  });
});
