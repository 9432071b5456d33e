/**
 * A user's install, as the README's install section gives it: the packed package (`npm pack`) installed
 * with `npm install -g` into a prefix of its own with an empty npm cache, as on a fresh machine, so
 * every package comes from the registry and better-sqlite3 is built (its prebuilt download where it
 * can be reached, else from its sources). Beside it, what a contributor's `npm ci` puts on disk:
 * this checkout's node_modules. npm runs under the bench's own node, so the build is for that node.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scratchDir } from "./repo.js";
import { progress, timeProcess } from "./stats.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface InstallResult {
  ms: number;
  /** On disk (blocks, as du counts them): the installed package with its dependencies. */
  bytes: number;
  packages: number;
  tarballBytes: number;
  /** better-sqlite3 compiled here (no prebuilt binary could be downloaded). */
  sqliteCompiled: boolean;
  contributorBytes: number;
}

export async function installBench(): Promise<InstallResult> {
  const dir = scratchDir("install");
  const prefix = path.join(dir, "prefix");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
  };
  // node-gyp builds against the headers installed with this node when there are any (a nodedir in
  // ~/.npmrc may name another node's); elsewhere it downloads them, as on a user's machine.
  const nodeDir = path.resolve(path.dirname(process.execPath), "..");
  if (existsSync(path.join(nodeDir, "include", "node", "node_api.h"))) env.npm_config_nodedir = nodeDir;
  progress(
    `install: npm pack, then npm install -g of it into an empty prefix with an empty npm cache (node ${process.version})`,
  );
  // Without scripts: `npm run bench` has just built dist/.
  await timeProcess("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: ROOT, env });
  const { version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
  const tarball = path.join(dir, `nudge-${version}.tgz`);
  const install = await timeProcess(
    "npm",
    ["install", "-g", "--prefix", prefix, "--cache", path.join(dir, "cache"), "--no-audit", "--no-fund", tarball],
    { cwd: dir, env },
  );
  // It must work: the CLI starts, and the search index's native module loads.
  const installed = path.join(prefix, "lib", "node_modules", "nudge");
  await timeProcess(path.join(prefix, "bin", "nudge"), ["--version"], { env });
  await timeProcess(
    process.execPath,
    [
      "-e",
      "new (require(process.argv[1]))(':memory:').close()",
      path.join(installed, "node_modules", "better-sqlite3"),
    ],
    { env },
  );
  return {
    ms: install.ms,
    bytes: diskBytes(prefix),
    packages: Number(/added (\d+) package/.exec(install.stdout)?.[1] ?? NaN),
    tarballBytes: statSync(tarball).size,
    sqliteCompiled: existsSync(
      path.join(installed, "node_modules", "better-sqlite3", "build", "Release", "obj.target"),
    ),
    contributorBytes: diskBytes(path.join(ROOT, "node_modules")),
  };
}

/** What `du -s` counts: the blocks of everything under a folder (a hard-linked file once; links not followed). */
function diskBytes(dir: string): number {
  let total = 0;
  const seen = new Set<number>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      const s = lstatSync(full);
      if (s.nlink > 1 && !entry.isDirectory()) {
        if (seen.has(s.ino)) continue;
        seen.add(s.ino);
      }
      total += s.blocks * 512;
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return total;
}
