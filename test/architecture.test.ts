/**
 * The layout's one rule, checked: imports run one way along the data's path (claude → recorder →
 * snapshot → store → live session → commands and frontends). Each folder of src/ has a place in
 * LAYERS; a file may import its own folder's files and those of lower layers, never a higher one
 * (static, type-only and dynamic imports alike), so no two folders can import each other in a
 * circle. Reads the sources as text: no process, no build.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src");

/** Lowest first. `base` holds the helpers every layer uses (errors, zod, format, inert text…). */
const LAYERS = [
  "base",
  "claude",
  "snapshot",
  "store",
  "rules",
  "secrets",
  "recorder",
  "time-travel",
  "maintenance",
  "live",
  "loop",
  "view",
  "search",
  "sharing",
  "sync",
  "terminal",
  "web",
  "commands",
  "entry",
] as const;
/** src/'s files that start the program or write files from every layer's schemas: above the commands. */
const ENTRY_FILES = new Set(["cli.ts", "hook-cli.ts", "bin.ts", "json-schemas.ts", "write-json-schemas.ts"]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return sources(file);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts") ? [file] : [];
  });
}

function layerOf(file: string): string {
  const [first, ...rest] = path.relative(SRC, file).split(path.sep);
  // A loose file that does not start the program belongs in a folder: "." has no layer.
  if (rest.length === 0) return ENTRY_FILES.has(first!) ? "entry" : ".";
  return first!;
}

/** Every relative module a file names: `import … from`, `export … from`, `import type`, `import("…")`. */
function importsOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(
    /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s+["']([^"']+)["']/gm,
  )) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (spec.startsWith(".")) found.push(spec);
  }
  return found;
}

const files = sources(SRC);
const edges = files.flatMap((file) =>
  importsOf(readFileSync(file, "utf8")).map((spec) => {
    const target = path.resolve(path.dirname(file), spec).replace(/\.(m?js)$/, ".ts");
    return { file: path.relative(SRC, file), spec, from: layerOf(file), to: layerOf(target) };
  }),
);

describe("the layout", () => {
  it("places every folder of src/ in a layer", () => {
    const folders = new Set(files.map(layerOf));
    expect([...folders].filter((f) => !(LAYERS as readonly string[]).includes(f))).toEqual([]);
  });

  it("reads imports as they are written (the parse sees a good share of them)", () => {
    expect(edges.length).toBeGreaterThan(files.length);
  });

  it("imports run one way: no file imports a folder above its own", () => {
    const rank = (layer: string) => LAYERS.indexOf(layer as (typeof LAYERS)[number]);
    const upward = edges
      .filter((e) => rank(e.to) > rank(e.from))
      .map((e) => `${e.file} → ${e.spec} (${e.from} → ${e.to})`);
    expect(upward).toEqual([]);
  });
});
