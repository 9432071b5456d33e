/**
 * How text is cut into what the index matches. SQLite's unicode61 tokenizer folds case and strips
 * accents (remove_diacritics 2) for words of scripts that put spaces between words. Chinese,
 * Japanese and Korean do not (or attach particles to words), so a run of their characters is
 * indexed as its overlapping pairs ("認証タイ" → 認証 証タ タイ), each a token between zero-width
 * spaces. A CJK word of two characters or more is searched as the phrase of its pairs: it matches
 * exactly where its characters follow each other, and a pair is a far rarer token than a single
 * character (an 8-character word is 7 selective tokens, not 8 common ones). A single character is
 * searched as a prefix of the pairs, or among the runs' last characters, which go to a column of
 * their own (in the text they would stand between a run and the word after it, and break phrases
 * that cross). NFKC first: a full-width "ＡＢＣ" is "ABC".
 */

/** Zero-width space: a separator to the tokenizer (category Cf), invisible, never shown. */
const CUT = "\u200b";

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]+/gu;
const CJK_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]$/u;

/**
 * A terminal's escape sequences, as a program prints them (ESC, or C1 CSI) or as a log or JSON
 * spells them out (\u001b, \x1b, \033, \e): colour codes glued to a word ("ESC[31mfoo") would
 * otherwise make one token of their digits and the word ("31mfoo"), and the word is never found.
 * Spelled out, only CSI sequences ("\e[31m") are taken: "C:\eNotes" keeps its word.
 */
const ESCAPE =
  /(?:\u001b|\\u001[bB]|\\x1[bB]|\\033|\\e)\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b(?:\][^\u0007\u001b]{0,512}(?:\u0007|\u001b\\)|[ -/]+[0-~]|[0-9=>@-Z\\^_])/g;

/**
 * A control character spelled out, as a tool's input holds it (JSON text: "r\nword", "\u0007word"),
 * or as code writes it in strings: its letters would glue to the next word ("nword"), never found.
 */
const SPELLED_BREAK = /\\[nrtbf]|\\u[0-9a-fA-F]{4}/g;

/** The text with its escape sequences blanked, each character a space: offsets into it are offsets into `text`. */
function blankEscapes(text: string): string {
  // Each starts with ESC, CSI or a backslash: a text with none (most) is not scanned by the patterns (~1.5 ns a character each).
  if (!text.includes("\\") && !text.includes("\u001b") && !text.includes("\u009b")) return text;
  return text.replace(ESCAPE, (seq) => " ".repeat(seq.length)).replace(SPELLED_BREAK, (seq) => " ".repeat(seq.length));
}

/** Text as it is given to the index: NFKC, escape sequences blanked, each CJK run as its pairs. */
export function indexedText(text: string): string {
  return blankEscapes(text.normalize("NFKC")).replaceAll(CUT, " ").replace(CJK_RUN, cutRun);
}

/** The last character of each CJK run of two or more: the index's second column. */
export function runTails(text: string): string {
  return [...text.normalize("NFKC").matchAll(CJK_RUN)]
    .flatMap((m) => (m[0].length > 1 ? [[...m[0]].at(-1)!] : []))
    .join(" ");
}

function cutRun(run: string): string {
  const chars = [...run];
  const tokens = chars.length === 1 ? chars : chars.slice(0, -1).map((c, i) => c + chars[i + 1]);
  return CUT + tokens.join(CUT) + CUT;
}

/** unicode61's token characters (its categories L*, N*, Co): a query's words are cut as SQLite cuts them. */
const FTS_TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

/**
 * One query part as FTS5 sees it: each of its tokens (cut as the index is cut) a quoted string,
 * all of them required. The index keeps no positions (detail=column: a third of its size), so
 * a part of several tokens (a phrase, a CJK word's pairs, "auth-token") matches pieces holding
 * them all, and the search checks their order in the text (needsCheck).
 */
function queryString(p: QueryPart): string {
  const text = p.text.normalize("NFKC").replaceAll(CUT, " ");
  // A lone CJK character: a pair that starts with it, or a run's last character.
  if (CJK_CHAR.test(text)) return `"${text}" *`;
  const tokens = text.replace(CJK_RUN, cutRun).match(FTS_TOKEN) ?? [];
  return tokens.map((t, i) => `"${t}"${p.prefix && i === tokens.length - 1 ? " *" : ""}`).join(" AND ");
}

/** Does a piece FTS5 found for this part still need its tokens' order checked? (More than one token.) */
export function needsCheck(p: QueryPart): boolean {
  const text = p.text.normalize("NFKC").replaceAll(CUT, " ");
  return !CJK_CHAR.test(text) && (text.replace(CJK_RUN, cutRun).match(FTS_TOKEN)?.length ?? 0) > 1;
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
  // A part with no letters or digits ("---") is no word to the index: it would match nothing.
  return parts.filter((p) => tokenSpans(p.text).length > 0 && queryString(p) !== "");
}

/** The FTS5 MATCH expression of parsed parts: each a quoted string, CJK cut as the index is. */
export function matchExpression(parts: QueryPart[]): string {
  return parts.map(queryString).join(" AND ");
}

/**
 * unicode61's token characters (letters, digits, marks, private use); each CJK character alone,
 * and never glued to letters of other scripts beside it (the prolonged sound mark ー is one).
 * The others as a class less the CJK scripts (flag v): ~1 ms less to compile than a lookahead
 * before each character, the same characters (tokens.test.ts compares every code point).
 */
export const TOKEN = new RegExp(
  "[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\p{Script=Bopomofo}]|" +
    "[[\\p{L}\\p{N}\\p{M}\\p{Co}]--[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\p{Script=Bopomofo}]]+",
  "gv", // as a literal, TypeScript's ES2022 target refuses flag v (node 20 and later have it)
);

interface TokenSpan {
  start: number;
  end: number;
  token: string;
}

/** The tokens of a text as the index cuts them, with where each is. */
function tokenSpans(text: string): TokenSpan[] {
  return [...text.matchAll(TOKEN)].map((m) => ({ start: m.index, end: m.index + m[0].length, token: fold(m[0]) }));
}

/** Case and accents folded, as unicode61 with remove_diacritics 2 folds them. */
function fold(token: string): string {
  // ASCII (most tokens) and a CJK character have no accents to strip: normalizing is most of a snippet's cost.
  if (ASCII.test(token)) return token.toLowerCase();
  if (CJK_CHAR.test(token)) return token;
  return token.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Where the parts match in `text` (NFKC), as [start, end) ranges in order: from the first match
 * to `window` characters after it, which is all a snippet shows (a 1 MB tool output is not cut
 * into tokens to the end for a 200-character line). SQLite decided that the piece matches; this
 * finds where, with the same cuts. With a window, cutting starts at the first place a part's
 * first word is spelled as typed (case aside), and from the start only if nothing matches there on
 * (a word found through its accents alone).
 */
export function matchRanges(text: string, parts: QueryPart[], window = Infinity): Array<[number, number]> {
  return rangesIn(cutText(text), parts, window);
}

/** The text cut as the index cuts it (escape sequences blanked, at the same offsets): for several matchRanges over one text. */
export function cutText(text: string): string {
  return blankEscapes(text);
}

/** matchRanges over a text already cut (cutText). */
export function rangesIn(cut: string, parts: QueryPart[], window = Infinity): Array<[number, number]> {
  const wanted = parts
    .map((p) => ({ tokens: tokenSpans(p.text.normalize("NFKC")).map((t) => t.token), prefix: p.prefix }))
    .filter((w) => w.tokens.length > 0);
  if (window !== Infinity) {
    const from = firstSpelling(cut, wanted);
    if (from > 0) {
      const ranges = scan(cut, wanted, window, from);
      if (ranges.length > 0) return ranges;
    }
  }
  return scan(cut, wanted, window, 0);
}

/**
 * Where the part's first match in the cut text ends, its words in order (-1: none)? A CJK word (characters each a token)
 * matches where its characters follow each other: found as it is spelled, not by cutting the
 * whole text into tokens (a 45 KB tool output that holds the word's pairs apart costs ~7 ms).
 */
/** A CJK word's characters as UTF-8 (null for any other part). */
export function cjkSpelling(part: QueryPart): Buffer | null {
  const tokens = tokenSpans(part.text.normalize("NFKC")).map((t) => t.token);
  return tokens.length > 0 && !part.prefix && tokens.every((t) => CJK_CHAR.test(t))
    ? Buffer.from(tokens.join(""))
    : null;
}

export function matchEnd(cut: string, part: QueryPart): number {
  const tokens = tokenSpans(part.text.normalize("NFKC")).map((t) => t.token);
  if (tokens.length > 0 && !part.prefix && tokens.every((t) => CJK_CHAR.test(t))) {
    const word = tokens.join("");
    const at = cut.indexOf(word);
    return at < 0 ? -1 : at + word.length;
  }
  return rangesIn(cut, [part], 0)[0]?.[1] ?? -1;
}

interface Wanted {
  tokens: string[];
  prefix: boolean;
}

/** Where the earliest of the parts' first tokens is spelled in `text` (any case), moved back to the start of its word; -1: nowhere. */
function firstSpelling(text: string, wanted: Wanted[]): number {
  let first = -1;
  for (const w of wanted) {
    // A CJK word's characters are tokens each: look for all of them together, a rarer spelling than its first.
    const cjk = w.tokens.findIndex((t) => !CJK_CHAR.test(t));
    const spelling = CJK_CHAR.test(w.tokens[0]!) ? w.tokens.slice(0, cjk < 0 ? undefined : cjk).join("") : w.tokens[0]!;
    // Case folded by the regex; plain /i for ASCII, far faster than /iu over a long text.
    const at = CJK_CHAR.test(spelling[0]!)
      ? text.indexOf(spelling)
      : text.search(new RegExp(spelling.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), ASCII.test(spelling) ? "i" : "iu"));
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  if (first <= 0 || CJK_CHAR.test(text[first]!)) return first;
  while (first > 0 && WORD_CHAR.test(text[first - 1]!) && !CJK_CHAR.test(text[first - 1]!)) first--;
  return first;
}

const WORD_CHAR = /^[\p{L}\p{N}\p{M}\p{Co}]$/u;

function scan(cut: string, wanted: Wanted[], window: number, from: number): Array<[number, number]> {
  const longest = Math.max(0, ...wanted.map((w) => w.tokens.length));
  const re = new RegExp(TOKEN.source, TOKEN.flags);
  re.lastIndex = from;
  const tokens: TokenSpan[] = [];
  let done = false;
  const more = (): boolean => {
    // exec starts again from the beginning once it has returned null: never call it past the end.
    const m = done ? null : re.exec(cut);
    if (!m) {
      done = true;
      return false;
    }
    tokens.push({ start: m.index, end: m.index + m[0].length, token: fold(m[0]) });
    return true;
  };
  const ranges: Array<[number, number]> = [];
  let limit = Infinity;
  for (let i = 0; ; i++) {
    while (tokens.length < i + longest && more());
    const at = tokens[i];
    if (!at || at.start > limit) break;
    for (const w of wanted) {
      if (i + w.tokens.length > tokens.length) continue;
      const hit = w.tokens.every((t, k) =>
        k === w.tokens.length - 1 && w.prefix ? tokens[i + k]!.token.startsWith(t) : tokens[i + k]!.token === t,
      );
      if (!hit) continue;
      ranges.push([at.start, tokens[i + w.tokens.length - 1]!.end]);
      if (limit === Infinity) limit = at.start + window;
    }
  }
  return ranges;
}
