/** How queries and texts are cut: what the index matches, and where a snippet says it matched. */
import { describe, expect, it } from "vitest";
import { indexedText, matchExpression, matchRanges, parseQuery, runTails, TOKEN } from "../../src/search/tokens.js";

/** TOKEN as the index's tokens were first cut with: a lookahead keeps CJK out of the other characters' runs. */
const LOOKAHEAD_TOKEN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}])[\p{L}\p{N}\p{M}\p{Co}])+/gu;
const spans = (re: RegExp, text: string) => [...text.matchAll(re)].map((m) => `${m.index}:${m[0]}`).join(" ");

const where = (text: string, query: string, window?: number) =>
  matchRanges(text, parseQuery(query), window).map(([a, b]) => text.slice(a, b));

describe("search tokens", () => {
  it("passes no FTS5 syntax on: each token is a quoted string, all required", () => {
    expect(matchExpression(parseQuery('auth OR NEAR(x) "a phrase" pre* "x"y"'))).toBe(
      '"auth" AND "OR" AND "NEAR" AND "x" AND "a" AND "phrase" AND "pre" * AND "x" AND "y"',
    );
    expect(parseQuery("(…) * ---")).toEqual([]);
  });

  it("cuts CJK runs into pairs in the index and in the query alike; a lone character is a prefix", () => {
    expect(indexedText("認証タイ ok 字")).toBe("\u200b認証\u200b証タ\u200bタイ\u200b ok \u200b字\u200b");
    expect(runTails("認証タイ ok 字 ウト")).toBe("イ ト");
    expect(matchExpression(parseQuery("認証タイムアウト 字 認証API"))).toBe(
      '"認証" AND "証タ" AND "タイ" AND "イム" AND "ムア" AND "アウ" AND "ウト" AND "字" * AND "認証" AND "API"',
    );
    expect(where("認証タイムアウトを修正しました", "タイムアウト")).toEqual(["タイムアウト"]);
    expect(where("認証タイムアウトを修正しました", "証認")).toEqual([]);
  });

  it("finds phrases in order, prefixes, and words whatever their case and accents", () => {
    expect(where("The Auth timeout was raised; auth then timeout", '"auth timeout"')).toEqual(["Auth timeout"]);
    expect(where("a Café résumé", "cafe RESUME")).toEqual(["Café", "résumé"]);
    expect(where("timeouts and timers", "time*")).toEqual(["timeouts", "timers"]);
  });

  it("stops looking past the snippet's window, and ends on a text with no match", () => {
    const text = "needle " + "hay ".repeat(1000) + "needle";
    expect(where(text, "needle", 100)).toEqual(["needle"]);
    expect(where(text, "needle")).toEqual(["needle", "needle"]);
    expect(where("nothing here at all", '"here nothing"')).toEqual([]);
  });

  it("finds words glued to terminal escape sequences, printed or spelled out, where they are", () => {
    const coloured = "\u001b[1;31mquokka\u001b[0m and \u001b]0;title\u0007wombat, \u009b4mnumbat";
    expect(where(coloured, "quokka wombat numbat")).toEqual(["quokka", "wombat", "numbat"]);
    expect(indexedText(coloured)).not.toMatch(/31mquokka|4mnumbat/);
    const logged = String.raw`"\u001b[32mpassed\u001b[0m" \x1b[33mskipped \033[0mfailed \e[1mtotal`;
    expect(where(logged, "passed skipped failed total")).toEqual(["passed", "skipped", "failed", "total"]);
    // Spelled out, only a CSI sequence is one: a Windows path keeps its words.
    expect(where(String.raw`C:\eNotes\x1bHello`, "eNotes x1bHello")).toEqual(["eNotes", "x1bHello"]);
  });

  it("finds a word after a line break or tab spelled out, as a tool's input (JSON) holds them", () => {
    const input = JSON.stringify({ content: "first\nquillfeather rests\r\n\tkestrel", code: 'print("a\\nbanyan")' });
    expect(where(input, "quillfeather kestrel banyan")).toEqual(["quillfeather", "kestrel", "banyan"]);
    expect(indexedText(input)).not.toMatch(/nquillfeather|tkestrel|nbanyan/);
    expect(indexedText(input)).toHaveLength(input.length);
  });

  it("cuts tokens with its class less the CJK scripts exactly as with the lookahead it replaced, at every code point", () => {
    // Each code point after a Latin letter, before and after a CJK character, before a Latin letter.
    for (let from = 0; from <= 0x10ffff; from += 0x1000) {
      let text = "";
      for (let c = from; c < Math.min(from + 0x1000, 0x110000); c++) {
        const ch = String.fromCodePoint(c);
        text += ` a${ch}認${ch}b`;
      }
      const [was, is] = [spans(LOOKAHEAD_TOKEN, text), spans(TOKEN, text)];
      if (was !== is) expect(is, `code points from ${from.toString(16)}`).toBe(was);
    }
    for (const text of [
      "認証タイムアウトを修正しました。Café résumé",
      "ﾀｲﾑｱｳﾄ ㄅㄆ 한국어abc ー日本ーabc",
      "नमस्ते ١٢٣ x\ue000y",
    ])
      expect(spans(TOKEN, text)).toBe(spans(LOOKAHEAD_TOKEN, text));
  });
});
