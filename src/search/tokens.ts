/**
 * How text is cut into what the index matches. SQLite's unicode61 tokenizer folds case and strips
 * accents (remove_diacritics 2) for words of scripts that put spaces between words. Chinese,
 * Japanese and Korean do not (or attach particles to words), so each of their characters is made
 * a token of its own by a zero-width space around it, and a CJK word is searched as the phrase of
 * its characters: "認証" matches exactly where those two characters follow each other. The same
 * function prepares the indexed text and the query, so both are cut alike. NFKC first: a
 * full-width "ＡＢＣ" is "ABC".
 */

/** Zero-width space: a separator to the tokenizer (category Cf), invisible in a snippet, removed from it. */
export const CUT = "\u200b";

const CJK = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}])/gu;

/** Text as it is stored in the index: NFKC, each CJK character a token of its own. */
export function indexedText(text: string): string {
  return text.normalize("NFKC").replaceAll(CUT, " ").replace(CJK, `${CUT}$1${CUT}`);
}

export interface QueryPart {
  /** The words of a quoted phrase, or a single word. */
  text: string;
  phrase: boolean;
  /** A trailing `*`: words starting with it. */
  prefix: boolean;
}

/**
 * A user's query: words, "quoted phrases", and `word*` for a prefix. Every part must match
 * (AND). Nothing of FTS5's own syntax (NEAR, OR, NOT, column filters) reaches SQLite: each part is
 * passed as a quoted string, so a query is never a syntax error and never more than words.
 */
export function parseQuery(query: string): QueryPart[] {
  const parts: QueryPart[] = [];
  const re = /"([^"]*)"(\*)?|([^\s"]+)/g;
  for (const m of query.normalize("NFKC").matchAll(re)) {
    if (m[1] !== undefined) {
      if (m[1].trim() !== "") parts.push({ text: m[1].trim(), phrase: true, prefix: m[2] === "*" });
    } else {
      const word = m[3]!;
      const prefix = word.endsWith("*");
      const text = word.replace(/\*+$/, "");
      if (text !== "") parts.push({ text, phrase: false, prefix });
    }
  }
  return parts;
}

/** The FTS5 MATCH expression of parsed parts: each a quoted string, CJK cut as the index is. */
export function matchExpression(parts: QueryPart[]): string {
  return parts.map((p) => `"${indexedText(p.text).replaceAll('"', '""')}"${p.prefix ? " *" : ""}`).join(" AND ");
}

/**
 * The tokens of a text as the index cut it, with where each is: runs of letters, digits and marks
 * (unicode61's token characters), each CJK character a token of its own. Used to show where a hit
 * matched; SQLite decided that it matched.
 */
export function tokenSpans(text: string): Array<{ start: number; end: number; token: string }> {
  const out: Array<{ start: number; end: number; token: string }> = [];
  for (const m of text.matchAll(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]|[\p{L}\p{N}\p{M}\p{Co}]+/gu)) {
    out.push({ start: m.index, end: m.index + m[0].length, token: fold(m[0]) });
  }
  return out;
}

/** Case and accents folded, as unicode61 with remove_diacritics 2 folds them. */
export function fold(token: string): string {
  return token.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

/** Where the parts match in `text` (NFKC), [start, end) ranges, in order. */
export function matchRanges(text: string, parts: QueryPart[]): Array<[number, number]> {
  const tokens = tokenSpans(text);
  const ranges: Array<[number, number]> = [];
  for (const part of parts) {
    const want = tokenSpans(part.text.normalize("NFKC")).map((t) => t.token);
    if (want.length === 0) continue;
    for (let i = 0; i + want.length <= tokens.length; i++) {
      const hit = want.every((w, k) => {
        const t = tokens[i + k]!.token;
        return k === want.length - 1 && part.prefix ? t.startsWith(w) : t === w;
      });
      if (hit) ranges.push([tokens[i]!.start, tokens[i + want.length - 1]!.end]);
    }
  }
  return ranges.sort((a, b) => a[0] - b[0]);
}
