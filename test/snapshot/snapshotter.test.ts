import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { takeSnapshot } from "../../src/snapshot/snapshotter.js";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";

async function snap(repo: string, n: number, previousTree: string) {
  const indexFile = path.join(tempDir(), "index");
  return takeSnapshot({ root: repo, indexFile, ref: `refs/nudge/t/${n}`, parent: null, previousTree, message: `t${n}` });
}

const names = async (repo: string, tree: string) => (await git(repo, "ls-tree", "-r", "--name-only", tree)).split("\n");

describe("takeSnapshot", () => {
  it("captures what git would: tracked and untracked files, not ignored ones — as the user's git sees them now", async () => {
    const repo = await gitdir({ ".gitignore": "*.log\n", "a.txt": "a\n" });
    writeFiles(repo, { "tracked.log": "tracked although ignored\n" });
    await git(repo, "add", "-f", "tracked.log");
    await git(repo, "commit", "-q", "-m", "force-add an ignored file");
    const base = await git(repo, "rev-parse", "HEAD^{tree}");
    writeFiles(repo, { "new.txt": "untracked\n", "skip.log": "ignored\n" });
    const indexBefore = readFileSync(path.join(repo, ".git/index"));

    const first = await snap(repo, 1, base);
    expect(await names(repo, first.tree)).toEqual([".gitignore", "a.txt", "new.txt", "tracked.log"]);
    expect(first.stats).toMatchObject({ filesChanged: 1, insertions: 1, deletions: 0 });
    expect(first.head).toBe(await git(repo, "rev-parse", "HEAD"));
    expect(await git(repo, "rev-parse", "refs/nudge/t/1")).toBe(first.commit);

    // The user ignores new.txt: it is no longer captured, as git status would no longer show it.
    writeFileSync(path.join(repo, ".gitignore"), "*.log\nnew.txt\n");
    const second = await snap(repo, 2, first.tree);
    expect(await names(repo, second.tree)).toEqual([".gitignore", "a.txt", "tracked.log"]);

    expect(readFileSync(path.join(repo, ".git/index")).equals(indexBefore)).toBe(true);
    expect(await git(repo, "status", "--porcelain")).toBe(" M .gitignore");
  });

  it("writes a patch that git apply turns back into the snapshot, binary files included", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const base = await git(repo, "rev-parse", "HEAD^{tree}");
    writeFiles(repo, { "bin.dat": Buffer.from([0, 1, 2, 255, 0]), "latin1.txt": Buffer.from("caf\xe9\n", "latin1") });
    const s = await snap(repo, 1, base);
    expect(s.stats.binaryFiles).toBe(1);
    const patch = path.join(tempDir(), "p.patch");
    writeFileSync(patch, s.patch);
    const env = { ...process.env, GIT_INDEX_FILE: path.join(tempDir(), "i") };
    const { execa } = await import("execa");
    await execa("git", ["read-tree", base], { cwd: repo, env });
    await execa("git", ["apply", "--cached", patch], { cwd: repo, env });
    expect((await execa("git", ["write-tree"], { cwd: repo, env })).stdout).toBe(s.tree);
  });
});
