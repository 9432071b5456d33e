/**
 * Which characters of a piece of markdown (Claude's text, a prompt) are markup, so that a
 * snippet in the terminal reads as the text would look rendered: `**bold**` as bold, `` `code` ``
 * as code, `[a link](url)` as its text, `# ` and `> ` at a line's start gone. Only markers that
 * come in pairs on one line are taken (a lone `*` in `*.ts`, `a_b` stay), and nothing inside a
 * code span but its backticks. The caller drops the marked characters and keeps the rest as is.
 */

/** For each UTF-16 unit of `text`, 1 when it is markup to leave out. */
export function markdownMarkers(text: string): Uint8Array {
  const drop = new Uint8Array(text.length);
  const code = new Uint8Array(text.length); // inside a code span: left alone by the other rules
  const mark = (from: number, to: number) => drop.fill(1, from, to);
  for (const m of text.matchAll(/^[ \t]*(`{3,}|~{3,})[^\n]*$/gm)) mark(m.index, m.index + m[0].length); // a fence line
  for (const m of text.matchAll(/(`+)([^`\n]+?)\1(?!`)/g)) {
    mark(m.index, m.index + m[1]!.length);
    mark(m.index + m[0].length - m[1]!.length, m.index + m[0].length);
    code.fill(1, m.index, m.index + m[0].length);
  }
  const free = (from: number, to: number) => !code.subarray(from, to).includes(1);
  const pairs = (re: RegExp) => {
    for (const m of text.matchAll(re)) {
      const open = m[1]!.length;
      if (!free(m.index, m.index + m[0].length)) continue;
      mark(m.index, m.index + open);
      mark(m.index + m[0].length - open, m.index + m[0].length);
    }
  };
  pairs(/(?<![\p{L}\p{N}*])(\*\*|__)(?=\S)[^\n]*?\S\1(?![\p{L}\p{N}*])/gu);
  pairs(/(?<![\p{L}\p{N}*])(\*|_)(?=[^\s*_])[^\n*_]*?[^\s*_]\1(?![\p{L}\p{N}*])/gu);
  pairs(/(?<!~)(~~)(?=\S)[^\n]*?\S\1(?!~)/gu);
  for (const m of text.matchAll(/(!?\[)([^\]\n]+)(\]\([^)\s]*\))/g)) {
    if (!free(m.index, m.index + m[0].length)) continue;
    mark(m.index, m.index + m[1]!.length);
    mark(m.index + m[1]!.length + m[2]!.length, m.index + m[0].length);
  }
  for (const m of text.matchAll(/^[ \t]*(#{1,6}[ \t]+|>[ \t]?)/gm)) mark(m.index, m.index + m[0].length);
  return drop;
}
