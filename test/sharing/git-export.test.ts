/** The git calls export and import add: a chain of commits, copies with masked messages, many tree diffs in one process. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commitChain, commitTree, copyCommits, diffTreePairs, diffTrees, stageAll } from "../../src/snapshot/git.js";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";

/** Three snapshot-like commits on top of the first commit, each with a prompt in its message. */
async function chain(repo: string): Promise<{ base: string; commits: string[]; trees: string[] }> {
  const base = await git(repo, "rev-parse", "HEAD");
  const index = path.join(tempDir(), "index");
  const commits: string[] = [];
  const trees: string[] = [];
  let parent = base;
  const turns: Array<Record<string, string | Buffer>> = [
    { "a.txt": "one\n" },
    { "a.txt": "two\n", "bin.dat": Buffer.from([0, 1, 2, 255]) },
    { "b.txt": "renamed?\n" },
  ];
  for (const [n, files] of turns.entries()) {
    writeFiles(repo, files);
    const { tree } = await stageAll(repo, index);
    parent = await commitTree(repo, tree, [parent], `nudge s turn ${n + 1}\n\nprompt ${n + 1}`);
    commits.push(parent);
    trees.push(tree);
  }
  return { base, commits, trees };
}

describe("git calls for sharing", () => {
  it("commitChain lists a session's commits oldest first with their trees, parents and messages", async () => {
    const repo = await gitdir({ "README.md": "# x\n" });
    const { base, commits, trees } = await chain(repo);
    const listed = await commitChain(repo, commits[2]!, base);
    expect(listed.map((c) => [c.commit, c.tree, c.parents])).toEqual([
      [commits[0], trees[0], [base]],
      [commits[1], trees[1], [commits[0]]],
      [commits[2], trees[2], [commits[1]]],
    ]);
    expect(listed[1]!.message).toBe("nudge s turn 2\n\nprompt 2");
  });

  it("copyCommits: another message, the same tree and dates, children on the copies; an unchanged copy is the same commit", async () => {
    const repo = await gitdir({ "README.md": "# x\n" });
    const { base, commits, trees } = await chain(repo);
    const listed = await commitChain(repo, commits[2]!, base);
    expect(await copyCommits(repo, [{ commit: commits[0]!, parents: [base] }])).toEqual([commits[0]]);
    const copies = await copyCommits(
      repo,
      listed.slice(1).map((c, i) => ({
        commit: c.commit,
        parents: c.parents,
        ...(i === 0 ? { message: "nudge s turn 2\n\n[REDACTED:x]" } : {}),
      })),
    );
    expect(copies.every((c, i) => c !== commits[i + 1])).toBe(true);
    const copied = await commitChain(repo, copies[1]!, base);
    expect(copied.map((c) => [c.tree, c.parents])).toEqual([
      [trees[0], [base]],
      [trees[1], [commits[0]]],
      [trees[2], [copies[0]]],
    ]);
    expect(copied[1]!.message).toBe("nudge s turn 2\n\n[REDACTED:x]");
    expect(copied[2]!.message).toBe("nudge s turn 3\n\nprompt 3");
    expect(copied.map((c) => c.committerDate)).toEqual(listed.map((c) => c.committerDate));
    expect(
      await copyCommits(
        repo,
        listed.slice(1).map((c, i) => ({
          commit: c.commit,
          parents: c.parents,
          ...(i === 0 ? { message: "nudge s turn 2\n\n[REDACTED:x]" } : {}),
        })),
      ),
    ).toEqual(copies);
    expect(await git(repo, "fsck", "--no-dangling")).toBe("");
  });

  it("diffTreePairs gives, in one process, the patch diffTrees gives for each pair (nothing for equal trees)", async () => {
    const repo = await gitdir({ "README.md": "# x\n" });
    const { trees } = await chain(repo);
    const pairs: Array<[string, string]> = [
      [trees[0]!, trees[1]!],
      [trees[1]!, trees[1]!],
      [trees[1]!, trees[2]!],
      [trees[2]!, trees[0]!],
    ];
    const made = await diffTreePairs(repo, pairs);
    expect(made).toHaveLength(4);
    for (const [i, [a, b]] of pairs.entries()) expect(made[i]!.equals(await diffTrees(repo, a, b))).toBe(true);
    expect(made[1]!.length).toBe(0);
  });
});
