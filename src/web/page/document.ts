/**
 * The page's HTML document, for the server (`nudge web`: the bundle by URL, the CSP sent as a
 * header) and for a static export (one self-contained file: the bundle, the stylesheet and the
 * data inline, and a CSP in a meta tag allowing exactly that script and that style by hash, and no
 * connection at all). Node side: the server and `session export --html` call it.
 */
import { createHash } from "node:crypto";
import { inertJson } from "../../base/inert-text.js";
import type { SessionView, TurnView } from "../../view/view-types.js";

export type PageDocument =
  | { mode: "server"; csrf: string; title: string }
  | { mode: "static"; data: { session: SessionView; turns: TurnView[] }; title: string; script: string; css: string };

/** nudge's icon inline (img-src allows data:), so the browser does not ask the server for /favicon.ico (a 404 in every log). */
const ICON = `data:image/svg+xml,${encodeURIComponent("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect width='16' height='16' rx='3' fill='#0969da'/><path d='M4.5 12V4l7 8V4' stroke='#fff' stroke-width='2' fill='none'/></svg>")}`;

export function pageDocument(o: PageDocument): string {
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
  ];
  if (o.mode === "server") {
    return html([
      ...head,
      `<link rel="icon" href="${escapeHtml(ICON)}">`,
      `<meta name="nudge-csrf" content="${escapeHtml(o.csrf)}">`,
      `<title>${escapeHtml(o.title)}</title>`,
      '<link rel="stylesheet" href="/assets/page.css">',
      '<script type="module" src="/assets/page.js"></script>',
    ]);
  }
  const script = inlineScript(o.script);
  const css = o.css.replace(/<\/(style)/gi, "<\\/$1");
  const csp = [
    "default-src 'none'",
    `script-src '${sha256(script)}'`,
    `style-src '${sha256(css)}'`,
    "img-src data:",
    "connect-src 'none'",
    "font-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return html([
    ...head,
    // First in the head: nothing before it runs or loads unchecked.
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    `<title>${escapeHtml(o.title)}</title>`,
    `<style>${css}</style>`,
    `<script type="application/json" id="nudge-data">${jsonForHtml(o.data)}</script>`,
    `<script type="module">${script}</script>`,
  ]);
}

function html(head: string[]): string {
  return `<!doctype html>\n<html lang="en">\n<head>\n${head.join("\n")}\n</head>\n<body>\n<div id="app"></div>\n</body>\n</html>\n`;
}

/**
 * JSON that cannot end its <script> element or open a comment in it: every `<`, `>` and `&` is a
 * \u escape (the same string to JSON.parse), and so are the characters a terminal would obey, for
 * `-o -` (the data's strings arrive inert already; this covers the rest).
 */
function jsonForHtml(value: unknown): string {
  return inertJson(JSON.stringify(value)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The bundle inline: a `</script` or `<!--` in it would end the element early (`<\/` is the same in JS strings and regexes). */
function inlineScript(script: string): string {
  return script.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

function sha256(text: string): string {
  return `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
