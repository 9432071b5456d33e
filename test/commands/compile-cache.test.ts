/**
 * Most of a command's start-up is V8 compiling the bundle's modules. The bin turns node's compile
 * cache on (where node has one: 22.1 and later), in node's default place under the temp folder,
 * so the next start reuses that work. Older nodes start as before and write nothing.
 */
import { existsSync, readdirSync } from "node:fs";
import module from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

const nodeHasCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";

describe("node's compile cache", () => {
  it(`a start ${nodeHasCache ? "leaves the bundle's compiled code in" : "runs without"} the cache under the temp folder (node ${process.version})`, async () => {
    const tmp = tempDir();
    // Only the temp folder says where: a cache named in the environment would be on without nudge.
    const env = { TMPDIR: tmp, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined } as unknown as Record<string, string>;
    const run = await runNudge(["session", "--help"], { cwd: tmp, env });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe("");
    const cache = path.join(tmp, "node-compile-cache");
    if (!nodeHasCache) return expect(existsSync(cache)).toBe(false);
    const files = readdirSync(cache, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    // The entry, the CLI and the session commands' chunks: one cached module each, at least.
    expect(files.length).toBeGreaterThanOrEqual(3);
  });
});
