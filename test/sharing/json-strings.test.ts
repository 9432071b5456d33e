import { describe, expect, it } from "vitest";
import { decodeToken, rawIndex, stringTokens } from "../../src/secrets/json-strings.js";

describe("the strings of a JSON line", () => {
  it("finds every key and value with its place in the raw text, escapes and all", () => {
    const value = { 'k"ey': 'a "quoted" \\ value\n', list: ["x", 1, { deep: "é😀\u2028" }], empty: "", n: null };
    const line = JSON.stringify(value).replace("é", "\\u00e9"); // as another writer might escape it
    const tokens = stringTokens(line).map((t) => ({
      text: decodeToken(line.slice(t.start, t.end)),
      isValue: t.isValue,
    }));
    expect(tokens).toEqual([
      { text: 'k"ey', isValue: false },
      { text: 'a "quoted" \\ value\n', isValue: true },
      { text: "list", isValue: false },
      { text: "x", isValue: true },
      { text: "deep", isValue: false },
      { text: "é😀\u2028", isValue: true },
      { text: "empty", isValue: false },
      { text: "", isValue: true },
      { text: "n", isValue: false },
    ]);
  });

  it("maps a place in the decoded value back to the raw text", () => {
    const raw = JSON.stringify('ab\n"c"\\d').replace("c", "\\u0063");
    const decoded = decodeToken(raw);
    for (let i = 0; i <= decoded.length; i++) {
      expect(decodeToken(`"${raw.slice(1, rawIndex(raw, i))}"`)).toBe(decoded.slice(0, i));
    }
  });
});

describe("the strings of a long JSON line", () => {
  it("are found in one pass: a tool input holding a file of 8 MB, an escape on every line", () => {
    const file = "0123456789 the quick brown fox jumps over the lazy dog\n".repeat(150_000);
    const line = JSON.stringify({
      type: "stream_event",
      event: { delta: { type: "input_json_delta", partial_json: JSON.stringify({ file_path: "/a", content: file }) } },
    });
    const t0 = Date.now();
    const tokens = stringTokens(line);
    // Searching for the next quote after every escape took ~40 s here.
    expect(Date.now() - t0).toBeLessThan(2_000);
    const value = tokens.find((t) => t.isValue && t.end - t.start > 1000)!;
    expect(JSON.parse(decodeToken(line.slice(value.start, value.end))).content).toBe(file);
    expect(tokens.filter((t) => !t.isValue).map((t) => line.slice(t.start, t.end))).toEqual([
      '"type"',
      '"event"',
      '"delta"',
      '"type"',
      '"partial_json"',
    ]);
  });
});
