/**
 * A full disk under nudge's store (a real tmpfs, filled) is the user's to fix wherever it is
 * found — by nudge, by git (`git init`, `git fetch`) or by SQLite (the search index): one
 * `error:` line, the hint `free some disk space, then run the command again`, exit 1. And what a
 * failed `git init` half made of the sync repository (`remote.git.<pid>.tmp`) is not left behind.
 */
import { execa } from "execa";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { configDir, origin } from "./share-support.js";

const HINT = "hint: free some disk space, then run the command again";

let rec: Recorded;
let a: string;
let clone: (name: string) => Promise<string>;

beforeAll(async () => {
  ({ clone } = await origin({ "README.md": "# app\n" }));
  a = await clone("ana");
  rec = await recordSession(
    a,
    [
      { tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "alpha\n" } },
      { text: "Wrote the needle." },
    ],
    ["write notes"],
  );
  const pushed = await runNudge(["session", "push"], { cwd: a, env: rec.env });
  expect(pushed.exitCode, pushed.stderr).toBe(0);
}, 120_000);
afterAll(() => rec?.api.close());

/**
 * A copy of a store on a small tmpfs of its own (NUDGE_STORE points there); `fill(spare)` then
 * takes all of its space but `spare` bytes, `free()` gives it back.
 */
async function storeOnSmallDisk(from: string | null, exclude: string[] = []) {
  const mount = tempDir("nudge-full-");
  await execa("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mount]);
  // Before the temp dir's own clean-up, which cannot remove a mount point.
  onTestFinished(() => execa("umount", [mount]).then(() => undefined));
  const store = path.join(mount, "store");
  if (from) cpSync(from, store, { recursive: true, filter: (f) => !exclude.includes(path.basename(f)) });
  else mkdirSync(store);
  const filler = path.join(mount, "filler");
  return {
    store,
    fill(spare: number) {
      const s = statfsSync(mount);
      writeFileSync(filler, Buffer.alloc(Math.max(0, s.bavail * s.bsize - spare)));
    },
    free: () => rmSync(filler, { force: true }),
  };
}

function saysDiskFull(run: { exitCode?: number; stderr: string }, what: RegExp): void {
  expect(run.stderr).not.toMatch(/nudge bug|\n\s+at /);
  expect(run.stderr).toMatch(what);
  expect(run.stderr).toContain(`\n${HINT}`);
  expect(run.exitCode, run.stderr).toBe(1);
}

describe("a full disk under the store", () => {
  it("push: git init of the sync repository fails on it; nothing of it is left, and a remote.git.<pid>.tmp of a nudge that died goes at the next push or gc", async () => {
    const disk = await storeOnSmallDisk(path.join(a, ".git", "nudge"), ["remote.git"]);
    const env = { ...rec.env, NUDGE_STORE: disk.store };
    const server = path.join(tempDir(), "server.git");
    await execa("git", ["init", "-q", "--bare", server]);
    disk.fill(24 * 1024); // room for the locks, none for a git repository
    const push = await runNudge(["session", "push", rec.id, "--remote", server], { cwd: a, env });
    saysDiskFull(push, /^error: .*No space left on device/m);
    expect(readdirSync(disk.store).filter((n) => n.startsWith("remote.git"))).toEqual([]);

    disk.free();
    // What an older nudge, killed or failing there, left: pid 2^22+1 is above any Linux pid_max, so never running.
    const dead = path.join(disk.store, `remote.git.${2 ** 22 + 1}.tmp`);
    mkdirSync(path.join(dead, "objects"), { recursive: true });
    const gc = await runNudge(["session", "gc", "--yes"], { cwd: a, env });
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(existsSync(dead)).toBe(false);
    mkdirSync(dead);
    const again = await runNudge(["session", "push", rec.id, "--remote", server], { cwd: a, env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(readdirSync(disk.store).filter((n) => n.startsWith("remote.git"))).toEqual(["remote.git"]);
  }, 120_000);

  it("pull: git fetch of the publication fails on it; the hint is the disk's, not the remote's URL", async () => {
    const b = await clone("bob");
    const disk = await storeOnSmallDisk(null);
    const env = { CLAUDE_CONFIG_DIR: configDir(), NUDGE_STORE: disk.store };
    expect((await runNudge(["session", "fetch"], { cwd: b, env })).exitCode).toBe(0);
    disk.fill(24 * 1024);
    const pull = await runNudge(["session", "pull", rec.id], { cwd: b, env });
    saysDiskFull(pull, /^error: .*(No space left on device|disk)/m);
    expect(pull.stderr).not.toContain("URL");
  }, 120_000);

  it.each([
    ["opening the index (its WAL files)", 8 * 1024],
    ["writing into the index", 160 * 1024],
  ])(
    "search: SQLite finds the disk full %s",
    async (_when, spare) => {
      const disk = await storeOnSmallDisk(path.join(a, ".git", "nudge"), ["search", "remote.git"]);
      const env = { ...rec.env, NUDGE_STORE: disk.store };
      disk.fill(spare);
      const search = await runNudge(["session", "search", "needle"], { cwd: a, env });
      saysDiskFull(
        search,
        /^error: the search index .* cannot be written: the disk is full \((disk I\/O error|database or disk is full)\)$/m,
      );
    },
    120_000,
  );
});
