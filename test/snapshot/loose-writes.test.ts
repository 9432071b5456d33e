/**
 * A rewind's backup commit and ref, written without git where the repository is plain: byte for
 * byte what `git commit-tree` and `git update-ref` write, and left to git wherever git would write
 * something else (another object format, a reflog the config asks for, a date the environment sets)
 * or could not find the tree loose.
 */
import { execa } from "execa";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commitBody, setNudgeRef, writeCommitHere, writeRefHere, zlibStored } from "../../src/snapshot/loose-writes.js";
import { inflateSync } from "node:zlib";
import { SNAPSHOT_IDENTITY } from "../../src/snapshot/git-process.js";
import { git, gitdir, tempDir } from "../support/gitdir.js";

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
  delete process.env.GIT_COMMITTER_DATE;
});

/** What git's commit-tree makes of the same tree, parents, message and time (nudge's identity). */
async function gitsCommit(repo: string, tree: string, parents: string[], message: string, when: Date): Promise<string> {
  const zone = /committer .* (\d+ [+-]\d{4})\n/.exec(commitBody(tree, parents, message, when).toString())![1]!;
  const { stdout } = await execa("git", ["commit-tree", ...parents.flatMap((p) => ["-p", p]), "-F", "-", tree], {
    cwd: repo,
    input: message,
    env: { ...SNAPSHOT_IDENTITY, GIT_AUTHOR_DATE: zone, GIT_COMMITTER_DATE: zone },
  });
  return stdout.trim();
}

describe("a commit and a ref written without git", () => {
  it("are git's own, in every time zone: the same commit id, a clean fsck, the ref resolved", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const commonDir = path.join(repo, ".git");
    writeFileSync(path.join(repo, "b.txt"), "b\n");
    await git(repo, "add", "b.txt");
    const tree = (await git(repo, "write-tree")).trim();
    const head = (await git(repo, "rev-parse", "HEAD")).trim();
    const when = new Date(Date.UTC(2026, 11, 6, 10, 30, 15));
    for (const [tz, zone] of [
      ["UTC", "+0000"],
      ["Asia/Kolkata", "+0530"],
      ["America/St_Johns", "-0330"],
    ] as const) {
      process.env.TZ = tz;
      const message = `nudge backup before rewinding 3f2a to turn 2 (${tz})\n\nwith a body, été`;
      const id = writeCommitHere(commonDir, tree, [head], message, when);
      expect(id).toBe(await gitsCommit(repo, tree, [head], message, when));
      expect(await git(repo, "cat-file", "commit", id!)).toContain(
        `committer nudge <nudge@localhost> ${when.getTime() / 1000} ${zone}`,
      );
      expect(writeRefHere(commonDir, `refs/nudge/backup/${tz.replace("/", "-")}`, id!)).toBe(true);
      expect((await git(repo, "rev-parse", `refs/nudge/backup/${tz.replace("/", "-")}`)).trim()).toBe(id);
    }
    // A root commit (no HEAD yet) too.
    expect(writeCommitHere(commonDir, tree, [], "first", when)).toBe(await gitsCommit(repo, tree, [], "first", when));
    await execa("git", ["fsck", "--strict", "--no-dangling"], { cwd: repo });
    // No reflog for a ref outside refs/heads: git's default, kept.
    expect(existsSync(path.join(commonDir, "logs", "refs", "nudge"))).toBe(false);
  });

  it("are written as zlib streams any inflate reads: empty, small, and across stored blocks", () => {
    for (const size of [0, 1, 300, 0xffff, 0xffff + 1, 3 * 0xffff + 7]) {
      const data = Buffer.from(Array.from({ length: size }, (_, i) => (i * 7919) % 251));
      expect(inflateSync(zlibStored(data)).equals(data)).toBe(true);
    }
  });

  it("are left to git where git would write something else, or could not check the tree", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const commonDir = path.join(repo, ".git");
    const tree = (await git(repo, "rev-parse", "HEAD^{tree}")).trim();
    const head = (await git(repo, "rev-parse", "HEAD")).trim();

    // The tree packed, not loose: git checks it is a tree.
    await git(repo, "gc", "-q");
    expect(writeCommitHere(commonDir, tree, [head], "m")).toBeNull();
    writeFileSync(path.join(repo, "b.txt"), "b\n");
    await git(repo, "add", "b.txt");
    const loose = (await git(repo, "write-tree")).trim();
    expect(writeCommitHere(commonDir, loose, [head], "m")).toMatch(/^[0-9a-f]{40}$/);

    // A date the environment sets.
    process.env.GIT_COMMITTER_DATE = "1700000000 +0000";
    expect(writeCommitHere(commonDir, loose, [head], "m")).toBeNull();
    delete process.env.GIT_COMMITTER_DATE;

    // A ref name git would judge, not this.
    expect(writeRefHere(commonDir, "refs/heads/main", head)).toBe(false);
    expect(writeRefHere(commonDir, "refs/nudge/a..b", head)).toBe(false);
    expect(writeRefHere(commonDir, "refs/nudge/x.lock", head)).toBe(false);

    // Another writer's lock on the ref: left to them (and to git, which says so), never removed.
    const held = path.join(commonDir, "refs", "nudge", "held.lock");
    mkdirSync(path.dirname(held), { recursive: true });
    writeFileSync(held, "");
    expect(writeRefHere(commonDir, "refs/nudge/held", head)).toBe(false);
    expect(existsSync(held)).toBe(true);
    expect(existsSync(path.join(commonDir, "refs", "nudge", "held"))).toBe(false);

    // Every ref's update logged: git writes the reflog the config asks for (another repository: asked once a process).
    const logged = await gitdir({ "a.txt": "a\n" });
    await git(logged, "config", "core.logAllRefUpdates", "always");
    const loggedHead = (await git(logged, "rev-parse", "HEAD")).trim();
    expect(writeRefHere(path.join(logged, ".git"), "refs/nudge/backup/x", loggedHead)).toBe(false);
    await setNudgeRef(logged, "refs/nudge/backup/x", loggedHead, path.join(logged, ".git"));
    expect((await git(logged, "rev-parse", "refs/nudge/backup/x")).trim()).toBe(loggedHead);
    expect(existsSync(path.join(logged, ".git", "logs", "refs", "nudge", "backup", "x"))).toBe(true);

    // Objects named by sha256.
    const other = tempDir();
    await execa("git", ["init", "-q", "--object-format=sha256", other]);
    writeFileSync(path.join(other, "a.txt"), "a\n");
    await git(other, "add", "a.txt");
    const tree256 = (await git(other, "write-tree")).trim();
    expect(writeCommitHere(path.join(other, ".git"), tree256, [], "m")).toBeNull();
  });
});
