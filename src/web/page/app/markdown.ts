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
md.validateLink = (url) => SAFE_LINK.test(url.trim());

md.renderer.rules.image = (tokens, i) => {
  const token = tokens[i]!;
  const alt = token.children?.map((c) => c.content).join("") ?? token.content;
  return `<span class="image-ref">${md.utils.escapeHtml(`[image: ${alt}] ${token.attrGet("src") ?? ""}`)}</span>`;
};

const ALLOWED_TAGS = ["p", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "code", "pre", "ul", "ol", "li", "a", "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "s", "del", "span"];

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
