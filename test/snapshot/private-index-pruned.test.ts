/**
 * A kept private index names blobs and trees by id; nothing keeps those objects alive but the
 * snapshots that use them. Once those are gone and git prunes (`nudge session rm`, then `git gc
 * --prune=now`), the index's stat-matched entries and the tree it remembers name objects that no
 * longer exist: the next capture must start over from the work tree, not fail or name them.
 */
import { execa } from "execa";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PrivateIndex } from "../../src/snapshot/private-index.js";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";

/** The reference: a fresh index from HEAD's, `git add -A`, `write-tree`. */
async function referenceTree(repo: string): Promise<string> {
  const env = { ...process.env, GIT_INDEX_FILE: path.join(tempDir(), "ref-index") };
  await execa("git", ["read-tree", "HEAD"], { cwd: repo, env });
  await execa("git", ["add", "-A"], { cwd: repo, env });
  return (await execa("git", ["write-tree"], { cwd: repo, env })).stdout;
}

/** What `session rm` then a gc leave: objects no ref (nor the user's index) holds are gone, the rest packed. */
const pruneUnreferenced = (repo: string) => git(repo, "gc", "-q", "--prune=now");

const exists = (repo: string, id: string) =>
  git(repo, "cat-file", "-e", id).then(
    () => true,
    () => false,
  );

describe("a kept private index whose objects were pruned", () => {
  const kept = (repo: string, dir: string) =>
    new PrivateIndex({
      root: repo,
      indexFile: path.join(dir, "index"),
      stateFile: path.join(dir, "index.state"),
      exclude: [],
      untrackedCache: true,
    });

  it("captures again from scratch when write-tree finds an entry's blob gone, in this process and the next", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const dir = tempDir();
    const index = kept(repo, dir);
    writeFiles(repo, { "new.txt": "uncommitted\n", "a.txt": "a edited\n" });
    const first = await index.capture();
    expect(first.tree).toBe(await referenceTree(repo));

    await pruneUnreferenced(repo);
    expect(await exists(repo, first.tree)).toBe(false);
    // As a turn's end does it: the stage first, the tree from it after.
    writeFiles(repo, { "other.txt": "another file\n" });
    const staged = await index.stage();
    expect(staged.tree).toBeNull();
    expect(await index.writeTree()).toBe(await referenceTree(repo));

    await pruneUnreferenced(repo);
    writeFiles(repo, { "third.txt": "a third file\n" });
    const next = await kept(repo, dir).capture();
    expect(next.tree).toBe(await referenceTree(repo));
    expect(await git(repo, "ls-tree", "-r", "--name-only", next.tree)).toBe("a.txt\nnew.txt\nother.txt\nthird.txt");
  });

  it("does not give back a remembered tree that was pruned while the work tree did not change", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const dir = tempDir();
    writeFiles(repo, { "new.txt": "uncommitted\n" });
    const first = await kept(repo, dir).capture();
    await pruneUnreferenced(repo);
    // The next process, then one more prune, with what this one remembers.
    const index = kept(repo, dir);
    for (const round of [1, 2]) {
      if (round === 2) await pruneUnreferenced(repo);
      const again = await index.capture();
      // Asked before the reference, which writes the same objects again.
      expect(await exists(repo, again.tree)).toBe(true);
      expect(again.tree).toBe(await referenceTree(repo));
      expect(await index.capture()).toMatchObject({ tree: again.tree, changed: 0 });
    }
    expect(first.tree).toBe(await referenceTree(repo)); // the same content, written again
  });

  it("keeps a remembered tree that a gc packed instead of pruning (a ref holds it)", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const dir = tempDir();
    writeFiles(repo, { "new.txt": "uncommitted\n" });
    const first = await kept(repo, dir).capture();
    const commit = await git(repo, "commit-tree", first.tree, "-m", "a snapshot");
    await git(repo, "update-ref", "refs/nudge/test", commit);
    await pruneUnreferenced(repo);
    const again = await kept(repo, dir).capture();
    expect(again).toMatchObject({ tree: first.tree, changed: 0 });
  });
});
