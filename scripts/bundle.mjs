/**
 * Bundles the CLI into dist/nudge.mjs (the `nudge` bin) with one chunk per lazily loaded command
 * in dist/chunks/. A command's start-up is mostly module loading: one file per command instead of
 * dozens, and only the parts of zod/mini a command uses, is what brings `nudge session list` near
 * `node -e 0` (see docs/performance.md).
 *
 * commander and zod are bundled (every command needs them); the other dependencies stay in
 * node_modules, loaded only by the commands that use them.
 */
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const bundled = new Set(["commander", "zod"]);
const external = Object.keys(pkg.dependencies)
  .filter((name) => !bundled.has(name))
  .flatMap((name) => [name, `${name}/*`]);

rmSync(new URL("../dist/chunks", import.meta.url), { recursive: true, force: true });
await build({
  // The search index's worker thread (src/search/background-index.ts) is an entry of its own.
  entryPoints: { nudge: "src/bin.ts", "index-worker": "src/search/index-worker.ts" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunks/[name]-[hash]",
  external,
  // commander is CommonJS: its require() of node's own modules needs a require in an ES module.
  banner: {
    js: "import { createRequire as __nudgeRequire } from 'node:module'; const require = __nudgeRequire(import.meta.url);",
  },
  logLevel: "warning",
});

// The web page (nudge web, session export --html): one script and one stylesheet in dist/web/,
// everything it uses bundled in (no CDN, nothing fetched at run time). Minified: the static
// export embeds both in every file it writes.
await build({
  entryPoints: { page: "src/web/page/app/main.tsx" },
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  outdir: "dist/web",
  jsx: "automatic",
  jsxImportSource: "preact",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
});
