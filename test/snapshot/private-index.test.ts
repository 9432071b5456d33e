/**
 * The kept private index (one status scan per turn, then staging exactly what changed) must give
 * the very tree ids that `git add -A` gives on a fresh copy of the user's index, the slow path
 * that is right by definition, across the cases where keeping an index could go wrong.
 */
import { execa } from "execa";
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PrivateIndex } from "../../src/snapshot/private-index.js";
import { patchBetween } from "../../src/snapshot/snapshotter.js";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";

/** The reference: a fresh copy of the user's index, `git add -A`, `write-tree`. */
async function referenceTree(repo: string): Promise<string> {
  const index = path.join(tempDir(), "ref-index");
  copyFileSync(path.join(repo, ".git", "index"), index);
  const env = { ...process.env, GIT_INDEX_FILE: index };
  await execa("git", ["add", "-A"], { cwd: repo, env });
  return (await execa("git", ["write-tree"], { cwd: repo, env })).stdout;
}

function kept(repo: string, untrackedCache: boolean): PrivateIndex {
  return new PrivateIndex({ root: repo, indexFile: path.join(tempDir(), "index"), exclude: [], untrackedCache });
}

const names = async (repo: string, tree: string) => (await git(repo, "ls-tree", "-r", "--name-only", tree)).split("\n");

describe.each([true, false])("a kept private index (untracked cache %s)", (untrackedCache) => {
  it("gives the same trees as git add -A on a fresh index, turn after turn", async () => {
    const repo = await gitdir({ ".gitignore": "*.log\nbuild/\n", "a.txt": "a\n", "dir/b.txt": "b\n" });
    const index = kept(repo, untrackedCache);
    const same = async (what: string) => {
      const capture = await index.capture();
      expect(capture.tree, what).toBe(await referenceTree(repo));
      return capture;
    };
    await same("the start");
    expect((await same("nothing changed")).changed).toBe(0);

    writeFiles(repo, {
      "a.txt": "a changed\n",
      "new.txt": "n\n",
      "skip.log": "ignored\n",
      "build/out.js": "ignored\n",
    });
    await same("an edit, a new file, ignored files");

    writeFileSync(path.join(repo, ".gitignore"), "*.log\nbuild/\nnew.txt\n");
    expect(await names(repo, (await same("an ignore rule added mid-session")).tree)).not.toContain("new.txt");

    writeFiles(repo, { "forced.log": "tracked though ignored\n" });
    await git(repo, "add", "-f", "forced.log");
    expect(await names(repo, (await same("git add -f of an ignored file")).tree)).toContain("forced.log");

    rmSync(path.join(repo, "dir"), { recursive: true });
    writeFiles(repo, { dir: "now a file\n" });
    await same("a folder became a file");
    rmSync(path.join(repo, "dir"));
    writeFiles(repo, { "dir/inner/c.txt": "c\n" });
    await same("and a folder again");

    renameSync(path.join(repo, "a.txt"), path.join(repo, "renamed.txt"));
    writeFiles(repo, { "exec.sh": "#!/bin/sh\n" });
    await execa("chmod", ["+x", path.join(repo, "exec.sh")]);
    await same("a rename and an executable");

    await git(repo, "add", "-A");
    await git(repo, "commit", "-q", "-m", "the user commits");
    await same("after the user's commit (the user's index changed)");
  });

  it("records a submodule's commit as it moves", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const sub = await gitdir({ "s.txt": "one\n" });
    await git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub");
    await git(repo, "commit", "-q", "-m", "add a submodule");
    const index = kept(repo, untrackedCache);
    expect((await index.capture()).tree).toBe(await referenceTree(repo));
    writeFiles(path.join(repo, "sub"), { "s.txt": "two\n" });
    await git(path.join(repo, "sub"), "commit", "-q", "-am", "move the submodule");
    expect((await index.capture()).tree).toBe(await referenceTree(repo));
    writeFiles(path.join(repo, "sub"), { "dirty.txt": "not committed\n" });
    expect((await index.capture()).tree).toBe(await referenceTree(repo));
  });

  it("picks up a file written while a scan ran at the next capture", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const index = kept(repo, untrackedCache);
    await index.capture();
    const scanning = index.capture();
    writeFiles(repo, { "during.txt": "written during the scan\n", "a.txt": "changed during the scan\n" });
    await scanning;
    expect((await index.capture()).tree).toBe(await referenceTree(repo));
  });
});

describe("the private index", () => {
  it("never touches the user's index, HEAD or status", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    writeFiles(repo, { "new.txt": "untracked\n", "a.txt": "modified\n" });
    const before = readFileSync(path.join(repo, ".git", "index"));
    const status = await git(repo, "status", "--porcelain");
    const index = kept(repo, true);
    await index.capture();
    writeFiles(repo, { "more.txt": "m\n" });
    await index.capture();
    expect(readFileSync(path.join(repo, ".git", "index")).equals(before)).toBe(true);
    expect((await git(repo, "status", "--porcelain")).split("\n").sort()).toEqual(
      [...status.split("\n"), "?? more.txt"].sort(),
    );
  });

  it("is seeded again, not trusted, when git cannot use it (a damaged file)", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const indexFile = path.join(tempDir(), "index");
    const index = new PrivateIndex({ root: repo, indexFile, exclude: [], untrackedCache: true });
    await index.capture();
    writeFileSync(indexFile, "not an index");
    writeFiles(repo, { "b.txt": "b\n" });
    expect((await index.capture()).tree).toBe(await referenceTree(repo));
  });

  it("leaves out folders of nudge's and claude's own inside the work tree", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    mkdirSync(path.join(repo, "store"));
    writeFiles(repo, { "store/x.json": "{}\n", "b.txt": "b\n" });
    const index = new PrivateIndex({
      root: repo,
      indexFile: path.join(tempDir(), "index"),
      exclude: ["store"],
      untrackedCache: true,
    });
    expect(await names(repo, (await index.capture()).tree)).toEqual(["a.txt", "b.txt"]);
  });
});

describe("patchBetween", () => {
  it("writes a patch git apply turns back into the snapshot, naming binary files by id instead of copying them", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const base = await git(repo, "rev-parse", "HEAD^{tree}");
    const big = Buffer.alloc(3_000_000, 7);
    big[0] = 0;
    writeFiles(repo, { "bin.dat": big, "latin1.txt": Buffer.from("caf\xe9\n", "latin1") });
    const tree = (await kept(repo, true).capture()).tree;
    const patch = await patchBetween(repo, base, tree);
    expect(patch.binaryFiles).toBe(1);
    expect(patch.bytes.length).toBeLessThan(2_000); // the 3 MB file is named by its object id, not copied
    const file = path.join(tempDir(), "p.patch");
    writeFileSync(file, patch.bytes);
    const env = { ...process.env, GIT_INDEX_FILE: path.join(tempDir(), "i") };
    await execa("git", ["read-tree", base], { cwd: repo, env });
    await execa("git", ["apply", "--cached", file], { cwd: repo, env });
    expect((await execa("git", ["write-tree"], { cwd: repo, env })).stdout).toBe(tree);
  });

  it("names the files an ignore rule took out of the snapshot though they are still on disk", async () => {
    const repo = await gitdir({ "a.txt": "a\n", "debug.log": "log\n" });
    const index = kept(repo, true);
    const before = (await index.capture()).tree;
    await git(repo, "rm", "-q", "--cached", "debug.log");
    writeFiles(repo, { ".gitignore": "*.log\n" });
    const after = (await index.capture()).tree;
    expect((await patchBetween(repo, before, after)).nowIgnored).toEqual(["debug.log"]);
  });
});

/**
 * A rewind's index is kept across processes (its state file): each process starts with a new
 * PrivateIndex object on the same files, as two of them do here. What the file notes is trusted
 * only while the index is as it left it, and the seed's sources are unchanged.
 */
describe("an index kept across processes", () => {
  const files = () => {
    const dir = tempDir();
    return { indexFile: path.join(dir, "index"), stateFile: path.join(dir, "index.state") };
  };
  const process = (repo: string, f: ReturnType<typeof files>) =>
    new PrivateIndex({ root: repo, ...f, exclude: [], untrackedCache: true });

  it("gives the next process the same trees as git add -A, without seeding again while nothing changed", async () => {
    const repo = await gitdir({ ".gitignore": "*.log\n", "a.txt": "a\n" });
    const f = files();
    expect((await process(repo, f).capture()).tree).toBe(await referenceTree(repo));
    const next = await process(repo, f).capture();
    expect(next.tree).toBe(await referenceTree(repo));
    expect(next.changed).toBe(0); // the noted tree, found with one scan: no seed (a seed stages afresh)
    writeFiles(repo, { "a.txt": "a changed\n", "new.txt": "n\n", "skip.log": "ignored\n" });
    expect((await process(repo, f).capture()).tree).toBe(await referenceTree(repo));
  });

  it("does not trust a noted tree once the index was written after it (a process killed between its index and its note)", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const f = files();
    const before = (await process(repo, f).capture()).tree;
    // What a rewind's switch does to the kept index before it notes the tree it now holds.
    writeFiles(repo, { "new.txt": "n\n" });
    await execa("git", ["update-index", "--add", "new.txt"], {
      cwd: repo,
      env: { ...globalThis.process.env, GIT_INDEX_FILE: f.indexFile },
    });
    const after = (await process(repo, f).capture()).tree;
    expect(after).not.toBe(before);
    expect(after).toBe(await referenceTree(repo));
  });

  it("a long-lived process (nudge web) does not trust what it remembers once another process (a CLI rewind) wrote the index", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const f = files();
    const web = process(repo, f);
    expect((await web.capture()).tree).toBe(await referenceTree(repo));
    writeFiles(repo, { "b.txt": "b\n" });
    expect((await process(repo, f).capture()).tree).toBe(await referenceTree(repo));
    // The work tree is as the other process's index says: nothing differs from it, yet the tree is not the one web knew.
    expect((await web.capture()).tree).toBe(await referenceTree(repo));
  });

  it("is seeded again when the user's index changed since (what counts as tracked is the user's)", async () => {
    const repo = await gitdir({ ".gitignore": "*.log\n", "a.txt": "a\n" });
    writeFiles(repo, { "forced.log": "tracked though ignored\n" });
    await git(repo, "add", "-f", "forced.log");
    await git(repo, "commit", "-q", "-m", "a tracked ignored file");
    const f = files();
    expect(await names(repo, (await process(repo, f).capture()).tree)).toContain("forced.log");
    await git(repo, "rm", "-q", "--cached", "forced.log");
    const tree = (await process(repo, f).capture()).tree;
    expect(await names(repo, tree)).not.toContain("forced.log");
    expect(tree).toBe(await referenceTree(repo));
  });

  it("starts afresh from a damaged or missing state file", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const f = files();
    await process(repo, f).capture();
    writeFileSync(f.stateFile, "{ not json");
    writeFiles(repo, { "b.txt": "b\n" });
    expect((await process(repo, f).capture()).tree).toBe(await referenceTree(repo));
    rmSync(f.stateFile);
    writeFiles(repo, { "c.txt": "c\n" });
    expect((await process(repo, f).capture()).tree).toBe(await referenceTree(repo));
  });
});
