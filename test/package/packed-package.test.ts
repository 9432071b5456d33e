/**
 * A user installs the packed package (`npm pack`, then `npm install -g ./nudge-<v>.tgz`), which
 * brings nudge's run-time dependencies only. So the package must carry the built CLI whole, and
 * every module it loads must be node's own or one of package.json's `dependencies`.
 */
import { execa } from "execa";
import { mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync } from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/gitdir.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
};

/** The package name a bare specifier names: `@scope/name` or `name`, without a path inside it. */
const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

let installed: string;
let files: string[];

beforeAll(async () => {
  // Packed as `npm pack` packs (the files field), without scripts: dist/ is built before the tests.
  const dir = tempDir();
  await execa("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: ROOT });
  await execa("tar", ["xzf", `nudge-${pkg.version}.tgz`], { cwd: dir });
  files = readdirSync(path.join(dir, "package"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(path.join(dir, "package"), path.join(entry.parentPath, entry.name)));
  // Installed as npm would lay it out, beside its dependencies and nothing else: a module the CLI
  // loads from a development dependency is not found there.
  const modules = path.join(dir, "node_modules");
  mkdirSync(modules);
  installed = path.join(modules, "nudge");
  renameSync(path.join(dir, "package"), installed);
  for (const name of Object.keys(pkg.dependencies)) {
    mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
    symlinkSync(path.join(ROOT, "node_modules", name), path.join(modules, name));
  }
}, 60_000);

describe("the packed package", () => {
  it("carries the bundle, its chunks, the web page and the schemas, and no sources, maps or tsc output", () => {
    const kinds = new Set(
      files.map((file) =>
        file.startsWith("dist/chunks/") ? "dist/chunks/*" : file.startsWith("schemas/") ? "schemas/*" : file,
      ),
    );
    expect([...kinds].sort()).toEqual([
      "LICENSE",
      "README.md",
      "dist/chunks/*",
      "dist/index-worker.mjs",
      "dist/nudge.mjs",
      "dist/web/page.css",
      "dist/web/page.js",
      "package.json",
      "schemas/*",
    ]);
    expect(files.filter((file) => file.startsWith("dist/chunks/") && !file.endsWith(".mjs"))).toEqual([]);
  });

  it("loads nothing but node's own modules and its dependencies", () => {
    const code = files
      .filter((file) => file.endsWith(".mjs"))
      .map((file) => readFileSync(path.join(installed, file), "utf8"));
    // Static and dynamic imports, and require (esbuild may rename it require2, …).
    const specifiers = new Set(
      code.flatMap((text) =>
        [...text.matchAll(/(?:\bfrom\s*|\bimport\(\s*|\brequire\d*\(\s*)["']([@a-z0-9][\w./@-]*)["']/g)].map(
          (m) => m[1]!,
        ),
      ),
    );
    const outside = [...specifiers].filter((s) => !isBuiltin(s) && !Object.hasOwn(pkg.dependencies, packageOf(s)));
    expect(outside).toEqual([]);
    // The scan finds what it is meant to: a dependency loaded each way.
    expect(specifiers).toContain("better-sqlite3");
    expect(specifiers).toContain("markdown-it");
  });

  it("runs from where npm installs it: its version, and every command's help", async () => {
    const cli = path.join(installed, "dist", "nudge.mjs");
    const version = await execa("node", [cli, "--version"], { reject: false, env: { NO_COLOR: "1" } });
    expect(version.stdout).toBe(pkg.version);
    const help = await execa("node", [cli, "--help"], { reject: false, env: { NO_COLOR: "1" } });
    expect(help.stderr).toBe("");
    expect(help.stdout).toContain("session");
    expect(help.exitCode).toBe(0);
  });
});
