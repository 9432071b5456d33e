/**
 * Claude's markdown as HTML a page can hold: markdown-it with raw HTML off (an HTML tag in the text
 * is text), links kept only for http(s) and mailto (a `javascript:` or `data:` link stays its
 * source text), opened in a new tab without referrer, images never loaded (shown as their alt text
 * and address: nothing leaves the page), code fences highlighted. Then DOMPurify over the result,
 * allowing only the tags markdown makes: defence in depth, should a renderer ever slip.
 */
import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";
import { highlight } from "./highlight.js";

const SAFE_LINK = /^(?:https?:|mailto:)/i;

const md = new MarkdownIt({
  html: false,
  linkify: true,
  highlight: (code, language) => highlight(code, language.toLowerCase()) ?? "",
});
// A link with no scheme is a path in the repository (`[the README](./README.md)`): kept, so it and
// a reference definition are not shown as raw markdown, but drawn as text the page cannot open.
const SCHEME = /^[a-z][a-z0-9+.-]*:|^\/\//i;
md.validateLink = (url) => SAFE_LINK.test(url.trim()) || !SCHEME.test(url.trim());
const isLocal = (href: string) => !SAFE_LINK.test(href.trim());

md.renderer.rules.link_open = (tokens, i, options, _env, self) => {
  const href = String(tokens[i]!.attrGet("href") ?? "");
  if (!isLocal(href)) return self.renderToken(tokens, i, options);
  return `<span class="local-link" title="${md.utils.escapeHtml(`a path in the repository: ${href}`)}">`;
};
md.renderer.rules.link_close = (tokens, i, options, _env, self) => {
  // The matching opener decides: the nearest link_open before this close at the same level.
  for (let j = i - 1; j >= 0; j--) {
    const t = tokens[j]!;
    if (t.type === "link_open" && t.level === tokens[i]!.level)
      return isLocal(String(t.attrGet("href") ?? "")) ? "</span>" : self.renderToken(tokens, i, options);
  }
  return self.renderToken(tokens, i, options);
};

// A task list (`- [ ] todo`, `- [x] done`) shows boxes, as Claude Code and GitHub draw them.
md.core.ruler.after("inline", "task-lists", (state) => {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i]!;
    if (
      inline.type !== "inline" ||
      tokens[i - 1]!.type !== "paragraph_open" ||
      tokens[i - 2]!.type !== "list_item_open"
    )
      continue;
    const first = inline.children?.[0];
    const box = first?.type === "text" ? /^\[([ xX])\]\s+/.exec(first.content) : null;
    if (!first || !box) continue;
    first.content = first.content.slice(box[0].length);
    const mark = new state.Token("html_inline", "", 0);
    mark.content = box[1] === " " ? '<span class="task">☐</span> ' : '<span class="task done">☑</span> ';
    inline.children!.unshift(mark);
    tokens[i - 2]!.attrJoin("class", "task-item");
  }
});

// A heading in claude's reply sits under the page's own (the session's h1, the turn's h2): its
// headings start at h3 and never skip a level, whatever levels claude wrote, so the page's outline
// stays one a screen reader can walk.
const REPLY_TOP = 3;
md.core.ruler.push("demote-headings", (state) => {
  const opens = state.tokens.filter((t) => t.type === "heading_open");
  const top = Math.min(...opens.map((t) => Number(t.tag.slice(1))));
  let previous = REPLY_TOP - 1;
  for (const [i, t] of state.tokens.entries()) {
    if (t.type !== "heading_open") continue;
    const level = Math.min(6, REPLY_TOP + Number(t.tag.slice(1)) - top, previous + 1);
    previous = level;
    t.tag = `h${level}`;
    // heading_open, its inline, heading_close: the close names the same tag.
    const close = state.tokens[i + 2];
    if (close?.type === "heading_close") close.tag = t.tag;
  }
});

md.renderer.rules.image = (tokens, i) => {
  const token = tokens[i]!;
  const alt = token.children?.map((c) => c.content).join("") ?? token.content;
  return `<span class="image-ref">${md.utils.escapeHtml(`[image: ${alt}] ${token.attrGet("src") ?? ""}`)}</span>`;
};

const ALLOWED_TAGS = [
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "strong",
  "em",
  "code",
  "pre",
  "ul",
  "ol",
  "li",
  "a",
  "blockquote",
  "hr",
  "br",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "s",
  "del",
  "span",
];

/** Above this many characters a text is shown as plain text: markdown of megabytes would hold the page up. */
export const MARKDOWN_MAX = 200_000;

// Every link the sanitizer lets through opens apart, with no referrer and no handle on this page.
// A DOMPurify hook, not a markdown-it rule: DOMPurify drops `target` and `rel` markdown-it sets.
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName !== "A") return;
  node.setAttribute("target", "_blank");
  node.setAttribute("rel", "noopener noreferrer");
});

export function renderMarkdown(source: string): string {
  return DOMPurify.sanitize(md.render(source), {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ["href", "title", "class", "start"],
    ALLOWED_URI_REGEXP: SAFE_LINK,
  });
}
