/**
 * The page: its HTML document (with this server's CSRF token in a meta tag) and the bundle
 * built into dist/web/ (page.js, page.css). Only those two names are served: no path from the URL
 * ever reaches the file system.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { pageDocument } from "../page/document.js";
import { HttpError } from "./http-io.js";
import type { Ctx } from "./router.js";

const TYPES: Record<string, string> = {
  "page.js": "text/javascript; charset=utf-8",
  "page.css": "text/css; charset=utf-8",
};

export async function sendPage({ res, app }: Ctx): Promise<void> {
  const html = pageDocument({
    mode: "server",
    csrf: app.guard.csrf,
    title: `nudge · ${path.basename(app.store.repoRoot)}`,
  });
  res.writeHead(200, {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Length": Buffer.byteLength(html),
  });
  res.end(html);
}

const cache = new Map<string, Buffer>();

export async function sendAsset({ res, app }: Ctx, name: string): Promise<void> {
  const type = TYPES[name];
  if (!type) throw new HttpError(404, `no asset ${name}`, "the page needs only page.js and page.css");
  let body = cache.get(name);
  if (!body) {
    const dir = app.assetsDir;
    body = await (dir === null ? Promise.reject(new Error("not built")) : fs.readFile(path.join(dir, name))).catch(
      () => {
        throw new HttpError(
          404,
          `the page's ${name} is not built`,
          "build nudge (npm run build) and start nudge web again",
        );
      },
    );
    cache.set(name, body);
  }
  res.writeHead(200, { "Content-Type": type, "Content-Length": body.length, "Cache-Control": "no-cache" });
  res.end(body);
}
