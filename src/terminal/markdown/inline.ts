/**
 * Markdown's inline part (bold, italic, `code`, links, ~~strike~~, escapes) as SGR styling, parsed
 * by markdown-it (CommonMark, the library the session page renders with) with raw HTML off: a tag
 * in claude's text is text. markdown-it is required the first time a line needs it (~50 ms to
 * load): commands that render no markdown never pay for it.
 *
 * Links are shown as their text, underlined, and the address after it when it says more than the
 * text: the OSC 8 hyperlink a terminal could make clickable is a control sequence, and nudge lets
 * none reach the terminal but its colours (src/base/inert-text.ts).
 */
import { visible } from "../../base/inert-text.js";
import { lazyMarkdownIt, type MarkdownToken as Token } from "../../base/markdown-it.js";

const parser = lazyMarkdownIt({ html: false, linkify: false, typographer: false });

/** SGR on/off pairs; off codes that turn off only their own attribute, so styles nest. */
const SGR = {
  bold: ["1", "22"],
  italic: ["3", "23"],
  strike: ["9", "29"],
  underline: ["4", "24"],
  code: ["36", "39"],
  dim: ["2", "22"],
} as const;
type Attr = keyof typeof SGR;

export function sgr(attr: Attr, text: string): string {
  const [on, off] = SGR[attr];
  return text ? `\u001b[${on}m${text}\u001b[${off}m` : text;
}

/** One line's (or a table cell's) inline markdown, styled. `base`: attributes around all of it (a heading's bold). */
export function renderInline(src: string, base: Attr[] = []): string {
  if (!src) return "";
  const children = parser().parseInline(src, {})[0]?.children ?? [];
  return renderTokens(children, base);
}

/** An emphasis or strike opener, or a backtick, that the parser left as text: one a later line may close. */
const OPENER = /(?:^|[\s([{"'])(?:\*{1,3}|_{1,3}|~~)(?=[^\s*_~])|`/;

/** Whether `src` leaves an emphasis, a strike or a code span open (its marker shown as text), which the paragraph's next line may close. */
export function hasOpenEmphasis(src: string): boolean {
  const children = parser().parseInline(src, {})[0]?.children ?? [];
  return children.some((t) => t.type === "text" && OPENER.test(t.content));
}

function renderTokens(tokens: Token[], base: Attr[]): string {
  const stack: Attr[] = [...base];
  let out = "";
  let href: string | null = null;
  let linkText = "";
  // Innermost first, so every attribute's off code closes only what it opened.
  const wrap = (shown: string) => [...stack].reverse().reduce((s, attr) => sgr(attr, s), shown);
  const styled = (text: string) => wrap(visible(text));
  for (const t of tokens) {
    switch (t.type) {
      case "strong_open":
        stack.push("bold");
        break;
      case "em_open":
        stack.push("italic");
        break;
      case "s_open":
        stack.push("strike");
        break;
      case "link_open":
        href = String(t.attrGet("href") ?? "");
        linkText = "";
        stack.push("underline");
        break;
      case "strong_close":
      case "em_close":
      case "s_close":
        stack.pop();
        break;
      case "link_close":
        stack.pop();
        if (href && href !== linkText && href !== `mailto:${linkText}`) out += ` ${sgr("dim", `(${visible(href)})`)}`;
        href = null;
        break;
      case "code_inline":
        out += wrap(sgr("code", visible(t.content)));
        if (href !== null) linkText += t.content;
        break;
      case "softbreak":
      case "hardbreak":
        out += "\n";
        break;
      case "image":
        out += styled(`[image: ${t.content || String(t.attrGet("src") ?? "")}]`);
        break;
      default:
        // text, text_special (an escape), entity, html_inline (off, but were it on: text)
        out += styled(t.content);
        if (href !== null) linkText += t.content;
    }
  }
  return out;
}
