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

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
md.renderer.rules.link_open = (tokens, i, options, env, self) => {
  tokens[i]!.attrSet("target", "_blank");
  tokens[i]!.attrSet("rel", "noopener noreferrer");
  return defaultLinkOpen(tokens, i, options, env, self);
};
md.renderer.rules.image = (tokens, i) => {
  const token = tokens[i]!;
  const alt = token.children?.map((c) => c.content).join("") ?? token.content;
  return `<span class="image-ref">${md.utils.escapeHtml(`[image: ${alt}] ${token.attrGet("src") ?? ""}`)}</span>`;
};

const ALLOWED_TAGS = ["p", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "code", "pre", "ul", "ol", "li", "a", "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "s", "del", "span"];

/** Above this many characters a text is shown as plain text: markdown of megabytes would hold the page up. */
export const MARKDOWN_MAX = 200_000;

export function renderMarkdown(source: string): string {
  return DOMPurify.sanitize(md.render(source), {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ["href", "title", "class", "target", "rel", "start"],
    ALLOWED_URI_REGEXP: SAFE_LINK,
  });
}
