/**
 * The start of a long text decoded from its JSON in the recording: cut anywhere, it is a prefix of
 * the whole text, never a broken escape or a split character (one of each kind, cut at every byte).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { jsonPart, jsonPrefix, storedText } from "../../src/search/stored-text.js";
import { snippetOf } from "../../src/search/snippet.js";
import { matchRanges, parseQuery } from "../../src/search/tokens.js";
import { tempDir } from "../support/gitdir.js";

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

  it("reaches as far past a CJK word's spelling as asked: 24 KB for masking, 4 KB for a snippet alone", () => {
    const text = "filler ".repeat(2000) + "こちら認証タイムアウトです ok " + "after ".repeat(6000);
    const file = path.join(tempDir(), "conversation.jsonl");
    const json = Buffer.from(JSON.stringify(text));
    writeFileSync(file, Buffer.concat([Buffer.from('{"x":'), json, Buffer.from("}\n")]));
    const stored = { zip: null, refAt: 5, refLength: json.length };
    const spelled = Buffer.from("認証タイムアウト");
    const end = text.indexOf("認証タイムアウト") + "認証タイムアウト".length;
    const masked = storedText(file, stored, { firstBytes: 24 * 1024, spelled });
    const snippet = storedText(file, stored, { firstBytes: 24 * 1024, spelled, afterSpelled: 4 * 1024 });
    for (const [s, after] of [
      [masked, 24 * 1024],
      [snippet, 4 * 1024],
    ] as const) {
      expect(s.whole).toBe(false);
      expect(text.startsWith(s.text)).toBe(true);
      expect(s.text.length - end).toBeGreaterThan(after - 8);
      expect(s.text.length - end).toBeLessThanOrEqual(after);
    }
  });

  it("is a part of the text wherever the JSON is begun: escapes and UTF-8 sequences kept whole", () => {
    const text = 'a\\b "q" \n\t tab é 認証タイムアウト 😀 \u001b[31mred\\\\n \\u0041 end\u0007 \ud83d';
    const json = Buffer.from(JSON.stringify(text));
    for (let from = 1; from < json.length - 1; from++) {
      const part = jsonPart(json, from, json.length - 1);
      expect(part, `begun at ${from}`).not.toBeNull();
      expect(text.endsWith(part!), `begun at ${from}: ${JSON.stringify(part)}`).toBe(true);
      // At most one escape (6 bytes) or one character (4 bytes) is left out after the start.
      expect(json.length - 1 - (Buffer.byteLength(JSON.stringify(part)) - 2), `begun at ${from}`).toBeLessThanOrEqual(
        from - 1 + 6,
      );
    }
  });

  it("for a snippet alone, a CJK word deep in a long text is decoded around it, and shows as the whole text shows it", () => {
    const before = 'line "one"\n\ttab \u001b[2m dim \\ back '.repeat(900);
    const text = before + "ここで認証タイムアウトが起きた **bold** `code` " + "after ".repeat(6000);
    const file = path.join(tempDir(), "conversation.jsonl");
    const json = Buffer.from(JSON.stringify(text));
    writeFileSync(file, Buffer.concat([Buffer.from('{"x":'), json, Buffer.from("}\n")]));
    const stored = { zip: null, refAt: 5, refLength: json.length };
    const spelled = Buffer.from("認証タイムアウト");
    const around = storedText(file, stored, {
      firstBytes: 24 * 1024,
      spelled,
      afterSpelled: 4 * 1024,
      beforeSpelled: 2 * 1024,
    });
    expect(around.whole).toBe(false);
    expect(text.includes(around.text)).toBe(true);
    expect(around.text.length).toBeLessThan(8 * 1024); // not the 30K characters before the word
    const parts = parseQuery("認証タイムアウト");
    const shown = (t: string) => snippetOf(t, matchRanges(t, parts, 400), { plain: true });
    expect(shown(around.text)).toEqual(shown(text));
    expect(shown(around.text).text.startsWith("…")).toBe(true);
  });
});
