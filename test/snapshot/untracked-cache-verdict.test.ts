/**
 * The untracked cache's verdict (src/snapshot/untracked-cache.ts): git's own check, run detached
 * once per work tree. Two nudge commands in a row used to start two checks in one scratch folder,
 * the first one's cleanup pulling it from under the second, which then recorded "no" for good.
 */
import { execa } from "execa";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { untrackedCacheVerdict } from "../../src/snapshot/untracked-cache.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { until } from "../support/until.js";

/** The check scripts running for this cache folder (their command lines name it). */
function checksRunning(cacheDir: string): number {
  return readdirSync("/proc").filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(cacheDir);
    } catch {
      return false;
    }
  }).length;
}

describe("the untracked cache's verdict", () => {
  it("asked twice in a row, one check runs and its verdict is git's: ok on this file system", async () => {
    vi.stubEnv("NUDGE_UNTRACKED_CACHE", undefined);
    const repo = await gitdir();
    const cacheDir = path.join(tempDir(), "index");
    // The control: git's own check, in the repository itself.
    const git = await execa("git", ["update-index", "--test-untracked-cache"], { cwd: repo, reject: false });
    expect(git.exitCode).toBe(0);

    expect(await untrackedCacheVerdict(cacheDir, repo)).toBe(false); // unknown yet: scans go without it
    await new Promise((r) => setTimeout(r, 2000)); // the next command, a moment later
    expect(await untrackedCacheVerdict(cacheDir, repo)).toBe(false);
    const verdictFile = await until("the verdict", async () => {
      const found = existsSync(cacheDir) ? readdirSync(cacheDir).find((f) => f.endsWith(".verdict")) : undefined;
      return found && path.join(cacheDir, found);
    });
    // Every check started (a second one too, were there one) has ended: the verdict is the last word.
    await until("no check running", async () => (checksRunning(cacheDir) === 0 ? true : undefined));
    expect(readFileSync(verdictFile, "utf8")).toMatch(/^ok \d+\n$/);
    expect(await untrackedCacheVerdict(cacheDir, repo)).toBe(true);
    vi.unstubAllEnvs();
  }, 60_000);

  it("a FIFO in place of the verdict is no verdict: the scan goes without the cache, and nothing hangs", async () => {
    vi.stubEnv("NUDGE_UNTRACKED_CACHE", undefined);
    const repo = await gitdir();
    const cacheDir = path.join(tempDir(), "index");
    mkdirSync(cacheDir, { recursive: true });
    expect(await untrackedCacheVerdict(cacheDir, repo)).toBe(false);
    const verdictFile = await until("the verdict", async () => {
      const found = readdirSync(cacheDir).find((f) => f.endsWith(".verdict"));
      return found && path.join(cacheDir, found);
    });
    await until("no check running", async () => (checksRunning(cacheDir) === 0 ? true : undefined));
    rmSync(verdictFile);
    await execa("mkfifo", [verdictFile]);
    // Opened as a file, a FIFO blocks until someone writes to it: every capture would wait for ever.
    const asked = await Promise.race([
      untrackedCacheVerdict(cacheDir, repo),
      new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 10_000).unref()),
    ]);
    expect(asked).toBe(false);
    await until("no check running", async () => (checksRunning(cacheDir) === 0 ? true : undefined));
    vi.unstubAllEnvs();
  }, 60_000);
});
