/**
 * A recording's long-lived git processes (src/snapshot/git-channels.ts): the same answers as the
 * one-shot processes, one git process each however many turns, and a channel that fails hands
 * over to the one-shot path with git's own error.
 */
import { execa } from "execa";
import { readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RecordingGit } from "../../src/snapshot/git-channels.js";
import { commitTree, patchAndChanges, refCommit, stageAll } from "../../src/snapshot/git.js";
import { gitdir, tempDir } from "../support/gitdir.js";

/** The git processes running in `repo` whose command line holds `words` (from /proc). */
function gitProcesses(repo: string, words: string): number[] {
  return readdirSync("/proc").flatMap((pid) => {
    if (!/^\d+$/.test(pid)) return [];
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
      return cmd.startsWith("git ") && cmd.includes(words) && readlinkSync(`/proc/${pid}/cwd`) === repo
        ? [Number(pid)]
        : [];
    } catch {
      return [];
    }
  });
}

async function trees(repo: string) {
  const index = path.join(tempDir(), "index");
  const odd = Buffer.from("caf\xe9\nnudge-end-00\n", "latin1"); // not UTF-8, newlines, and a line like the channel's own
  const before = (await stageAll(repo, index)).tree;
  writeFileSync(path.join(repo, "keep.txt"), "a\nb\nnudge-end-0123\n");
  writeFileSync(path.join(repo, "new.txt"), "x\ny\nz\nw\n");
  rmSync(path.join(repo, "old.txt"));
  writeFileSync(Buffer.concat([Buffer.from(`${repo}/`), odd]), "odd\n");
  writeFileSync(path.join(repo, "bin.dat"), Buffer.from([0, 1, 2, 255, 0]));
  const after = (await stageAll(repo, index)).tree;
  writeFileSync(path.join(repo, "keep.txt"), "only this\n");
  const third = (await stageAll(repo, index)).tree;
  return { before, after, third };
}

describe("a recording's long-lived git processes", () => {
  it("give the one-shot diff-tree's patch and changes byte for byte, for requests one after another and at once", async () => {
    const repo = await gitdir({ "keep.txt": "a\n", "old.txt": "x\ny\nz\nw\n" });
    const { before, after, third } = await trees(repo);
    const channels = new RecordingGit(repo);
    try {
      const pairs: Array<[string, string]> = [
        [before, after],
        [after, third],
        [third, before],
        [before, third],
      ];
      const expected = await Promise.all(pairs.map(([a, b]) => patchAndChanges(repo, a, b)));
      for (const [i, [a, b]] of pairs.entries()) expect(await channels.patchAndChanges(a, b)).toEqual(expected[i]);
      expect(await Promise.all(pairs.map(([a, b]) => channels.patchAndChanges(a, b)))).toEqual(expected);
      expect(gitProcesses(repo, "diff-tree --stdin")).toHaveLength(1);
    } finally {
      channels.close();
    }
  });

  it("a patch of many megabytes (a big generated file) comes back whole, in the pieces the pipe gives it", async () => {
    const repo = await gitdir({ "keep.txt": "a\n" });
    const index = path.join(tempDir(), "index");
    const before = (await stageAll(repo, index)).tree;
    writeFileSync(
      path.join(repo, "big.txt"),
      Array.from({ length: 200_000 }, (_, i) => `line ${i} of a generated file\n`).join(""),
    );
    const after = (await stageAll(repo, index)).tree;
    const channels = new RecordingGit(repo);
    try {
      const got = await channels.patchAndChanges(before, after);
      const expected = await patchAndChanges(repo, before, after);
      expect(got.patch.length).toBeGreaterThan(5_000_000);
      expect(got.patch.equals(expected.patch)).toBe(true);
      expect(got.changes).toEqual(expected.changes);
    } finally {
      channels.close();
    }
  });

  it("moves a ref with one update-ref for many turns; a ref git refuses fails with git's own words, and the next update still lands", async () => {
    const repo = await gitdir({ "a.txt": "1\n" });
    const tree = (await stageAll(repo, path.join(tempDir(), "index"))).tree;
    const channels = new RecordingGit(repo);
    try {
      let parent: string[] = [];
      for (let n = 0; n < 5; n++) {
        const commit = await commitTree(repo, tree, parent, `turn ${n}`);
        await channels.updateRef("refs/nudge/sessions/test", commit);
        expect(await refCommit(repo, "refs/nudge/sessions/test")).toBe(commit);
        parent = [commit];
      }
      expect(gitProcesses(repo, "update-ref --stdin")).toHaveLength(1);
      await expect(channels.updateRef("refs/nudge/sessions/test", "1".repeat(40))).rejects.toThrow(
        /nonexistent object/,
      );
      const last = await commitTree(repo, tree, parent, "after the refusal");
      await channels.updateRef("refs/nudge/sessions/test", last);
      expect(await refCommit(repo, "refs/nudge/sessions/test")).toBe(last);
    } finally {
      channels.close();
    }
  });

  it("a channel whose git was killed hands over to one-shot processes with the same answers", async () => {
    const repo = await gitdir({ "keep.txt": "a\n", "old.txt": "x\ny\nz\nw\n" });
    const { before, after } = await trees(repo);
    const channels = new RecordingGit(repo);
    try {
      const expected = await patchAndChanges(repo, before, after);
      expect(await channels.patchAndChanges(before, after)).toEqual(expected);
      const [pid] = gitProcesses(repo, "diff-tree --stdin");
      process.kill(pid!, "SIGKILL");
      await new Promise((r) => setTimeout(r, 100));
      expect(await channels.patchAndChanges(before, after)).toEqual(expected);
      expect(await channels.patchAndChanges(after, before)).toEqual(await patchAndChanges(repo, after, before));
    } finally {
      channels.close();
    }
  });

  it("end at close: no git of theirs is left running", async () => {
    const repo = await gitdir({ "keep.txt": "a\n", "old.txt": "x\ny\nz\nw\n" });
    const { before, after } = await trees(repo);
    const channels = new RecordingGit(repo);
    await channels.patchAndChanges(before, after);
    await channels.updateRef("refs/nudge/sessions/x", await commitTree(repo, after, [], "x"));
    expect(gitProcesses(repo, "--stdin")).toHaveLength(2);
    channels.close();
    await new Promise((r) => setTimeout(r, 300));
    expect(gitProcesses(repo, "--stdin")).toHaveLength(0);
    expect((await execa("git", ["rev-parse", "refs/nudge/sessions/x"], { cwd: repo })).exitCode).toBe(0);
  });
});
