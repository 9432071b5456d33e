/**
 * Issue 23, items 1, 3 and 4, through the built CLI with a session recorded by the real claude:
 * what an import may unpack (the limits, the flag that raises them, free space looked at first),
 * every ref an import installs checked against the journal (the issue's own tarball is a fixture:
 * fixtures/sharing/hostile-import/), and imports taking the store's lock.
 */
import { execa } from "execa";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLE_TIP } from "../../src/sharing/export-plan.js";
import * as gitOps from "../../src/snapshot/git.js";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import type { Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { nudgeRefs } from "../support/store-state.js";
import { FIXTURES, HOSTILE_IMPORTS } from "./hostile-fixtures.js";
import { configDir, exportedTwoTurns, filesUnder, importTarget, repack } from "./share-support.js";

let rec: Recorded;
let a: string;
let clone: (name: string) => Promise<string>;
let archive: string;

beforeAll(async () => {
  ({ rec, a, clone, archive } = await exportedTwoTurns());
}, 90_000);
afterAll(() => rec?.api.close());

const target = () => importTarget(clone);

describe("what an import may unpack (issue 23.1)", () => {
  it("a small archive listing a huge side file is refused before a byte is written: one line naming the limit, the flag that raises it", async () => {
    const t = await target();
    const run = await runNudge(["session", "import", path.join(FIXTURES, "zeros-side-file.tar.gz")], {
      cwd: t.b,
      env: t.env,
    });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toBe(
      "error: refusing zeros-side-file.tar.gz: its entries add up to 100 MiB, more than 50 times the archive's size (nudge unpacks that much, or 64 MiB from a smaller one)\n" +
        "hint: if you trust the file, import it with --max-size 100MiB (what it lets the import unpack at most)",
    );
    expect(readdirSync(t.tmp)).toEqual([]);
    expect(filesUnder(path.join(t.b, ".git", "nudge"))).toEqual([]);
    // --max-size lifts the size limits: the archive is unpacked, and refused for what it is (no session in it).
    const raised = await runNudge(
      ["session", "import", path.join(FIXTURES, "zeros-side-file.tar.gz"), "--max-size", "100MiB"],
      { cwd: t.b, env: t.env },
    );
    expect(raised.stderr).toMatch(/^error: refusing zeros-side-file\.tar\.gz: it holds no code \(no git bundle\)\n/);
    expect(filesUnder(path.join(t.b, ".git", "nudge"))).toEqual([]);
    const bad = await runNudge(["session", "import", archive, "--max-size", "lots"], { cwd: t.b, env: t.env });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/max-size.*a size such as 2GiB/);
  });

  it("free space is looked at before writing: a store on a too-small disk is refused with the space it needs, and nothing is written", async () => {
    const t = await target();
    const store = tempDir("nudge-small-disk-");
    // 4 MiB: less than the export unpacks to twice (unpacked, staged) plus the margin nudge keeps free.
    await execa("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", store]);
    try {
      const run = await runNudge(["session", "import", archive], { cwd: t.b, env: { ...t.env, NUDGE_STORE: store } });
      expect(run.exitCode, run.stderr).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^error: not enough disk space to import session\\.tar\\.gz: it needs [\\d.]+ KiB and more than 16 MiB to spare, and ${store} has [\\d.]+ MiB free\\nhint: free some space there, then import again$`,
        ),
      );
      expect(filesUnder(store)).toEqual([]);
    } finally {
      // Before the temp dir's own clean-up, which cannot remove a mount point.
      await execa("umount", [store]);
    }
  });
});

describe("every ref an import installs is checked (issue 23.3)", () => {
  /** The export with its git bundle made again, carrying `extra` beside the session's tip. */
  async function withBundleRefs(extra: (evil: string) => Array<{ ref: string; commit: string }>): Promise<string> {
    const evil = await git(a, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "not a snapshot");
    return repack(archive, async (dir) => {
      const bundle = path.join(dir, "git", "session.bundle");
      const tip = (await gitOps.readBundleHeader(bundle)).heads.find((h) => h.ref === BUNDLE_TIP)!.commit;
      writeFileSync(bundle, "");
      await gitOps.createBundle(a, bundle, [{ ref: BUNDLE_TIP, commit: tip }], extra(evil));
      expect(readFileSync(bundle).length).toBeGreaterThan(0);
    });
  }

  it("the issue's tarball (hostile-import/head-ref.tar.gz): a head ref of turn 1 at an attacker's commit is refused, no ref installed", async () => {
    // The export carries its base commit: any repository imports it, unless the ref check refuses it.
    const repo = await gitdir();
    const env = { CLAUDE_CONFIG_DIR: configDir(), TMPDIR: tempDir("nudge-tmp-") };
    const run = await runNudge(["session", "import", path.join(HOSTILE_IMPORTS, "head-ref.tar.gz")], {
      cwd: repo,
      env,
    });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr.split("\n")[0]).toBe(
      "error: refusing head-ref.tar.gz: its git bundle's refs/nudge/export/head-1 points at 9cc598a75d, but turn 1 recorded HEAD 10d9020601",
    );
    expect(await nudgeRefs(repo)).toEqual([]);
    expect(await git(repo, "cat-file", "-t", "9cc598a75d99e0d464a044864a3448fb2e012e98").catch(() => "missing")).toBe(
      "missing",
    );
    expect(filesUnder(path.join(repo, ".git", "nudge"))).toEqual([]);
  });

  it.each([
    [
      "a head ref of a turn the session does not have",
      (evil: string) => [{ ref: "refs/nudge/export/head-7", commit: evil }],
      /its git bundle's refs\/nudge\/export\/head-7 points at [0-9a-f]{10}, but the session has no turn 7$/,
    ],
    [
      "a ref no export makes",
      (evil: string) => [{ ref: "refs/nudge/export/other", commit: evil }],
      /its git bundle carries refs\/nudge\/export\/other, which no export makes$/,
    ],
    [
      "a base ref at another commit than the manifest's base",
      (evil: string) => [{ ref: "refs/nudge/export/base", commit: evil }],
      /its git bundle's refs\/nudge\/export\/base points at [0-9a-f]{10}, but the session's base commit is [0-9a-f]{10}$/,
    ],
  ])("%s: refused, no ref installed", async (_name, extra, message) => {
    const bad = await withBundleRefs(extra);
    const t = await target();
    const run = await runNudge(["session", "import", bad], { cwd: t.b, env: t.env });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr.split("\n")[0]).toMatch(message);
    expect(await nudgeRefs(t.b)).toEqual([]);
    expect(filesUnder(path.join(t.b, ".git", "nudge"))).toEqual([]);
  });
});

describe("imports take the store's lock (issue 23.4)", () => {
  it("three imports of one export at once: one installs it, the others wait and find it there; no bug, no stray ref", async () => {
    const t = await target();
    const runs = await Promise.all(
      [0, 1, 2].map(() => runNudge(["session", "import", archive], { cwd: t.b, env: t.env, timeout: 120_000 })),
    );
    for (const run of runs) expect(run.exitCode, run.stderr).toBe(0);
    expect(runs.filter((r) => r.stdout.startsWith("imported session ")).length).toBe(1);
    expect(runs.filter((r) => r.stdout.includes("is already imported, as session ")).length).toBe(2);
    const refs = await nudgeRefs(t.b);
    expect(refs.filter((r) => r.startsWith("refs/nudge/sessions/")).length).toBe(1);
    expect(readdirSync(path.join(t.b, ".git", "nudge", "sessions"))).toEqual([rec.id]);
    expect(existsSync(path.join(t.b, ".git", "nudge", "locks", "import.lock"))).toBe(false);
  });
});
