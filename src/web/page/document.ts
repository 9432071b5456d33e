/**
 * The HTML document of the page (placeholder until the page's own document lands on this branch:
 * the server only needs `pageDocument({ mode: "server", csrf, title })`). Nothing from a session
 * goes in here but the title, escaped.
 */
export type PageDocumentOptions =
  | { mode: "server"; csrf: string; title: string }
  | { mode: "static"; data: unknown; title: string; script: string; css: string };

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function pageDocument(o: PageDocumentOptions): string {
  if (o.mode !== "server") throw new Error("the static document is not built yet");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="nudge-csrf" content="${escapeHtml(o.csrf)}">
<title>${escapeHtml(o.title)}</title>
<link rel="stylesheet" href="/assets/page.css">
<script type="module" src="/assets/page.js"></script>
</head><body><div id="app"></div></body></html>
`;
}
