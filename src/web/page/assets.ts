/**
 * The built page (dist/web/page.js and page.css, from scripts/bundle.mjs), found from wherever
 * this module runs: the bundled CLI (dist/nudge.mjs, dist/chunks/*.mjs), tsc's output (dist/web/
 * page/), or the sources under tsx (src/web/page/). The server serves them; a static export inlines them.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { UserError } from "../../base/errors.js";

export async function pageAssetsDir(): Promise<string> {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    for (const candidate of [path.join(dir, "web"), path.join(dir, "dist", "web")]) {
      if (await fs.stat(path.join(candidate, "page.js")).catch(() => null)) return candidate;
    }
    if (path.dirname(dir) === dir) break;
  }
  throw new UserError("the web page's bundle (dist/web/page.js) is missing", "build nudge first: npm run build");
}

export async function readPageAssets(): Promise<{ script: string; css: string }> {
  const dir = await pageAssetsDir();
  const [script, css] = await Promise.all([
    fs.readFile(path.join(dir, "page.js"), "utf8"),
    fs.readFile(path.join(dir, "page.css"), "utf8"),
  ]);
  return { script, css };
}
