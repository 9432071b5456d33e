/**
 * The start of a long text decoded from its JSON in the recording: cut anywhere, it is a prefix of
 * the whole text, never a broken escape or a split character (one of each kind, cut at every byte).
 */
import { describe, expect, it } from "vitest";
import { jsonPrefix } from "../../src/search/stored-text.js";

describe("a stored text's start", () => {
  it("is a prefix of the text wherever the JSON is cut, escapes and UTF-8 sequences kept whole", () => {
    const text = 'a\\b "q" \n\t tab é 認証タイムアウト 😀 \u001b[31mred\\\\n \\u0041 end\u0007 \ud83d';
    const json = Buffer.from(JSON.stringify(text));
    expect(json.includes(Buffer.from("認証"))).toBe(true); // kept as UTF-8, as the recordings keep it
    for (let length = 1; length < json.length - 1; length++) {
      const start = jsonPrefix(json, length);
      expect(start, `cut at ${length}`).not.toBeNull();
      expect(text.startsWith(start!), `cut at ${length}: ${JSON.stringify(start)}`).toBe(true);
      // At most one escape (6 bytes) or one character (4 bytes) is left out before the cut.
      expect(Buffer.byteLength(JSON.stringify(start)) - 1, `cut at ${length}`).toBeGreaterThanOrEqual(length - 6);
    }
  });

  it("is null for bytes that are no JSON string", () => {
    expect(jsonPrefix(Buffer.from('{"a": 1}'), 5)).toBeNull();
  });
});
