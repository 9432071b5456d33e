/**
 * The tags a loop reads in claude's last message of an iteration: `<promise>TEXT</promise>`,
 * `<next-model>NAME</next-model>`, and a verifier's `<verify-pass/>` or
 * `<verify-fail>why</verify-fail>`. Only what claude says counts, read as CommonMark (markdown-it,
 * as the session page renders it): a tag in a paragraph, heading, list item or table. One in a
 * code block or span, a `>` quote at any depth (a list item's too: tool output is quoted so), an
 * HTML comment or block, a folded `<details>`, struck out, written as entities or escapes, or
 * between quotation marks is something claude shows, hides or withdraws, not says: loops that
 * trusted those stopped on a file's contents, a comment, or claude explaining its own rules.
 */
import { lazyMarkdownIt, type MarkdownToken as Token } from "../base/markdown-it.js";

/** Raw HTML on: only so that a comment is told from text; the tags themselves come back as written. */
const parser = lazyMarkdownIt({ html: true, linkify: false, typographer: false }, (md) => {
  // Kept apart, `&lt;` and `\<` stay told from a real `<`: they render a tag's text, not a tag.
  md.core.ruler.disable("text_join");
});

const COMMENT = /<!--[\s\S]*?-->/g;
/** The only HTML blocks that are prose: one that opens with a loop's own tag (a tag block). Any other is markup claude writes. */
const TAG_BLOCK = /^\s*<\/?(?:promise|next-model|verify-pass|verify-fail)\b/i;
/** A `<details>` is folded away on the page: the blocks inside it are hidden, not said. */
const DETAILS_OPEN = /<details\b/gi;
const DETAILS_CLOSE = /<\/details\s*>/gi;
/** Struck out in HTML: withdrawn, as `~~…~~` is. */
const STRIKE_OPEN = /^<(?:s|del|strike)(?:\s[^>]*)?>$/i;
const STRIKE_CLOSE = /^<\/(?:s|del|strike)\s*>$/i;

/** The message's prose: its paragraphs, headings, list items and table cells outside quotes, without code or comments, a blank line between blocks. */
function prose(text: string): string {
  const blocks: string[] = [];
  let quoted = 0;
  let folded = 0;
  for (const t of parser().parse(text, {})) {
    if (t.type === "html_block") {
      const content = t.content.replace(COMMENT, "");
      folded = Math.max(
        0,
        folded + (content.match(DETAILS_OPEN)?.length ?? 0) - (content.match(DETAILS_CLOSE)?.length ?? 0),
      );
    }
    if (t.type === "blockquote_open") quoted++;
    else if (t.type === "blockquote_close") quoted--;
    else if (quoted > 0 || folded > 0) continue;
    else if (t.type === "inline") blocks.push(inlineProse(t.children ?? []));
    else if (t.type === "html_block" && TAG_BLOCK.test(t.content)) blocks.push(t.content.replace(COMMENT, ""));
  }
  return blocks.join("\n\n");
}

/** A block's text as written, its tags included; code spans, comments, struck-out text and emphasis marks left out. */
function inlineProse(children: Token[]): string {
  let out = "";
  let struck = 0;
  for (const c of children) {
    if (c.type === "s_open" || (c.type === "html_inline" && STRIKE_OPEN.test(c.content))) struck++;
    else if (c.type === "s_close" || (c.type === "html_inline" && STRIKE_CLOSE.test(c.content)))
      struck = Math.max(0, struck - 1);
    else if (struck > 0) continue;
    else if (c.type === "text") out += c.content;
    // An entity or escape (`&lt;`, `\<`) shows a bracket, never makes one: no tag is built from it.
    else if (c.type === "text_special") out += c.content.replace(/[<>]/g, " ");
    else if (c.type === "html_inline" && !c.content.startsWith("<!--")) out += c.content;
    else if (c.type === "softbreak" || c.type === "hardbreak") out += "\n";
  }
  return out;
}

/** Quotations on one line, paired left to right: "…" and “…”. */
const QUOTATIONS = [/"[^"\n]*"/g, /“[^”\n]*”/g];
/** A whole tag in single quotes ('…' or ‘…’): apostrophes make longer spans ambiguous. */
const SINGLE_QUOTED_TAG = /['‘]\s*<([a-z-]+)(?:\s*\/>|>[^\n]*?<\/\1>)\s*['’]/g;

/** Prose without its quotations that hold a tag: where a tag counts. Quoted words without a tag stay (a fail's reason). */
function said(text: string): string {
  const unquoted = QUOTATIONS.reduce((t, re) => t.replace(re, (q) => (q.includes("<") ? " " : q)), prose(text));
  return unquoted.replace(SINGLE_QUOTED_TAG, " ");
}

/** The inner texts of every `<tag>…</tag>` in what said() left of a message, trimmed, in order. */
function tagged(saidText: string, tag: string): string[] {
  const found: string[] = [];
  for (const m of saidText.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))) found.push(m[1]!.trim());
  return found;
}

export interface IterationSigils {
  promises: string[];
  /** The last `<next-model>` named, if any. */
  nextModel: string | null;
}

export function readSigils(text: string): IterationSigils {
  const s = said(text);
  return { promises: tagged(s, "promise"), nextModel: tagged(s, "next-model").at(-1) ?? null };
}

export interface Verdict {
  pass: boolean;
  /** A fail's reason (null: none given, or a pass). */
  reason: string | null;
}

/** A verifier's answer; null when it gave none (which counts as a fail). A fail anywhere wins over a pass. */
export function readVerdict(text: string): Verdict | null {
  const s = said(text);
  const fails = tagged(s, "verify-fail");
  if (fails.length > 0) return { pass: false, reason: fails.join("\n").slice(0, 4000) || null };
  return /<verify-pass\s*\/>/.test(s) ? { pass: true, reason: null } : null;
}

/** The message without its tags, on one line and short: a reason to show ("FAILURE: the API it needs is gone"). */
export function reasonFrom(text: string): string {
  const flat = prose(text)
    .replace(/<(promise|next-model)>[\s\S]*?<\/\1>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}
