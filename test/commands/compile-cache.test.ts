/**
 * Most of a command's start-up is V8 compiling the bundle's modules. The bin turns node's compile
 * cache on (where node has one: 22.1 and later) in the user's cache folder, so the next start
 * reuses that work; the temp folder stays clean. Older nodes start as before and write nothing.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import module from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

const nodeHasCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";

/** A private home, cache and temp folder; a cache named in the environment would be on without nudge. */
function folders() {
  const root = tempDir();
  const [home, tmp] = [path.join(root, "home"), path.join(root, "tmp")];
  mkdirSync(home);
  mkdirSync(tmp);
  const env = {
    HOME: home,
    TMPDIR: tmp,
    XDG_CACHE_HOME: undefined,
    NODE_COMPILE_CACHE: undefined,
    NODE_DISABLE_COMPILE_CACHE: undefined,
  };
  return { root, home, tmp, env: env as unknown as Record<string, string> };
}

const cachedFiles = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;

describe("node's compile cache", () => {
  it(`a start ${nodeHasCache ? "leaves the bundle's compiled code in" : "runs without"} ~/.cache/nudge, nothing in the temp folder (node ${process.version})`, async () => {
    const f = folders();
    const run = await runNudge(["session", "--help"], { cwd: f.root, env: f.env });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe("");
    expect(readdirSync(f.tmp)).toEqual([]);
    const cache = path.join(f.home, ".cache", "nudge", "compile-cache");
    if (!nodeHasCache) return expect(existsSync(cache)).toBe(false);
    // The entry, the CLI and the session commands' chunks: one cached module each, at least.
    expect(cachedFiles(cache)).toBeGreaterThanOrEqual(3);
  });

  it("goes under XDG_CACHE_HOME when it is set", async () => {
    const f = folders();
    const xdg = path.join(f.root, "xdg");
    const run = await runNudge(["--version"], { cwd: f.root, env: { ...f.env, XDG_CACHE_HOME: xdg } });
    expect(run.exitCode).toBe(0);
    expect(existsSync(path.join(f.home, ".cache"))).toBe(false);
    if (nodeHasCache) expect(cachedFiles(path.join(xdg, "nudge", "compile-cache"))).toBeGreaterThanOrEqual(2);
  });

  it("a cache folder that cannot be made: the command runs as without one, and says nothing of it", async () => {
    const f = folders();
    const blocked = path.join(f.root, "a-file");
    writeFileSync(blocked, "");
    const run = await runNudge(["session", "--help"], { cwd: f.root, env: { ...f.env, XDG_CACHE_HOME: blocked } });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("rewind");
  });
});
