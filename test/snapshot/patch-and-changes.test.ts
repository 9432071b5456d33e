import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  changedFileCounts,
  diffEntries,
  diffTrees,
  patchAndChanges,
  objectsExist,
  stageAll,
  treePairEntries,
} from "../../src/snapshot/git.js";
import { patchBetween } from "../../src/snapshot/snapshotter.js";
import { git, gitdir, tempDir } from "../support/gitdir.js";

describe("a turn's patch and its changes from one git process", () => {
  it("gives diffTrees' patch byte for byte and diff-tree's records, with names git would quote", async () => {
    const odd = Buffer.from('caf\xe9 "q"\nline.txt', "latin1"); // not UTF-8, a quote and a newline
    const repo = await gitdir({
      "keep.txt": "a\n",
      "old.txt": "x\ny\nz\nw\n",
      "del.txt": "gone\n",
      ":colon.txt": "c\n",
    });
    writeFileSync(Buffer.concat([Buffer.from(`${repo}/`), odd]), "odd\n");
    const index = path.join(tempDir(), "index");
    const before = (await stageAll(repo, index)).tree;
    writeFileSync(path.join(repo, "keep.txt"), "a\nb\n");
    writeFileSync(path.join(repo, "new.txt"), "x\ny\nz\nw\n");
    rmSync(path.join(repo, "old.txt"));
    rmSync(path.join(repo, "del.txt"));
    rmSync(path.join(repo, ":colon.txt"));
    rmSync(Buffer.concat([Buffer.from(`${repo}/`), odd]));
    writeFileSync(path.join(repo, "bin.dat"), Buffer.from([0, 1, 2, 255, 0]));
    const after = (await stageAll(repo, index)).tree;

    const both = await patchAndChanges(repo, before, after);
    expect(both.patch.equals(await diffTrees(repo, before, after))).toBe(true);
    expect(both.changes).toEqual(await diffEntries(repo, before, after, true, "latin1"));
    expect(both.changes.map((c) => c.status).sort()).toEqual(["A", "D", "D", "D", "M", "R"]);
    expect(both.changes.find((c) => c.status === "R")).toMatchObject({ oldPath: "old.txt", path: "new.txt" });
    expect(both.changes.some((c) => c.path === odd.toString("latin1"))).toBe(true);
  });

  it("the same tree twice: no patch and no changes", async () => {
    const repo = await gitdir({ "a.txt": "1\n" });
    const tree = (await stageAll(repo, path.join(tempDir(), "index"))).tree;
    expect(await patchAndChanges(repo, tree, tree)).toEqual({ patch: Buffer.alloc(0), changes: [] });
  });

  it("a deleted or renamed file still on disk (an ignore rule took it out) is named as now ignored", async () => {
    const repo = await gitdir({ "build.log": "1\n", "moved.txt": "one\ntwo\nthree\n" });
    const index = path.join(tempDir(), "index");
    const before = (await stageAll(repo, index)).tree;
    writeFileSync(path.join(repo, ".gitignore"), "build.log\nmoved.txt\n");
    writeFileSync(path.join(repo, "renamed.txt"), "one\ntwo\nthree\n");
    // A fresh index, as a capture that starts over: the ignored files are not in it.
    const after = (await stageAll(repo, path.join(tempDir(), "index"))).tree;
    const patch = await patchBetween(repo, before, after);
    expect(patch.nowIgnored).toEqual(["build.log", "moved.txt"]);
  });
});

describe("files changed between many pairs of trees, from one git process", () => {
  it("counts as one diff-tree per pair would, with names holding a newline or starting with a colon, the same tree twice, and a pair asked twice", async () => {
    const odd = Buffer.from("caf\xe9\n:line.txt", "latin1");
    const repo = await gitdir({ "a.txt": "1\n", ":colon.txt": "c\n" });
    const index = path.join(tempDir(), "index");
    const trees = [(await stageAll(repo, index)).tree];
    writeFileSync(Buffer.concat([Buffer.from(`${repo}/`), odd]), "odd\n");
    trees.push((await stageAll(repo, index)).tree);
    writeFileSync(path.join(repo, ":colon.txt"), "changed\n");
    rmSync(path.join(repo, "a.txt"));
    writeFileSync(path.join(repo, "b.txt"), "new\n");
    trees.push((await stageAll(repo, index)).tree);
    const pairs: Array<[string, string]> = [
      [trees[0]!, trees[1]!],
      [trees[1]!, trees[2]!],
      [trees[0]!, trees[2]!],
      [trees[2]!, trees[0]!],
      [trees[1]!, trees[1]!],
      [trees[0]!, trees[1]!],
    ];
    const one = await Promise.all(pairs.map(async ([a, b]) => (await diffEntries(repo, a, b, false)).length));
    expect(one).toEqual([1, 3, 4, 4, 0, 1]);
    expect(await changedFileCounts(repo, pairs)).toEqual(one);
    // The records themselves, paths as UTF-8, as one diff-tree per pair reads them.
    expect(await treePairEntries(repo, pairs)).toEqual(
      await Promise.all(pairs.map(([a, b]) => diffEntries(repo, a, b, false))),
    );
    expect(await changedFileCounts(repo, [])).toEqual([]);
    expect(
      await objectsExist(repo, [trees[2]!, "0".repeat(40), (await git(repo, "rev-parse", "HEAD")).trim()], "tree"),
    ).toEqual([true, false, false]);
  });
});
