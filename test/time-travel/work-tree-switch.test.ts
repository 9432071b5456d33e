import {
  existsSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  chmodSync,
  mkdirSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { Store } from "../../src/store/store.js";
import { captureWorkTree as capture, type WorkTreeState } from "../../src/time-travel/rewind.js";
import { plannedSwitch, switchVerified } from "../../src/time-travel/work-tree-switch.js";
import { lockWorkTree } from "../../src/store/work-tree-lock.js";
import { git, gitdir, writeFiles } from "../support/gitdir.js";
import { treeListing, workTreeListing } from "../support/tree-listing.js";

/** The store of a plain repository's own work tree, as openStore finds it. */
function storeIn(repo: string): Store {
  return {
    repoRoot: repo,
    commonDir: path.join(repo, ".git"),
    gitDir: path.join(repo, ".git"),
    dir: path.join(repo, ".git", "nudge"),
    ownDirs: [],
  };
}

/** A capture as a rewind makes it: under the work tree's lock (held until the test ends). */
async function captureWorkTree(store: Store, repo: string): Promise<WorkTreeState> {
  const lock = await lockWorkTree(store, repo, { what: "testing" });
  onTestFinished(() => lock.release());
  return capture(store, repo);
}

/** Everything in the work tree committed: the commit's tree. */
async function committedTree(repo: string, message: string): Promise<string> {
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", message);
  return git(repo, "rev-parse", "HEAD^{tree}");
}

/** A switch planned and checked as production code plans it, then made. */
async function switchTrees(state: WorkTreeState, from: string, to: string, what: string): Promise<void> {
  await switchVerified(state, { from, to, what, changes: await plannedSwitch(state.root, from, to, what) });
}

/** Two trees that swap files and folders, a symlink and a file, and modes. */
async function twoTrees() {
  const repo = await gitdir({ ".gitignore": "*.log\n", a: "file a\n", "d/x": "in d\n", exe: "#!/bin/sh\n" });
  symlinkSync("a", path.join(repo, "link"));
  const treeA = await committedTree(repo, "A");
  rmSync(path.join(repo, "a"));
  rmSync(path.join(repo, "d"), { recursive: true });
  rmSync(path.join(repo, "link"));
  mkdirSync(path.join(repo, "a"));
  writeFileSync(path.join(repo, "a/inner"), "a is a folder now\n");
  writeFileSync(path.join(repo, "d"), "d is a file now\n");
  writeFileSync(path.join(repo, "link"), "a regular file\n");
  chmodSync(path.join(repo, "exe"), 0o755);
  writeFileSync(path.join(repo, "new.bin"), Buffer.from([0, 255, 0, 1]));
  const treeB = await committedTree(repo, "B");
  await git(repo, "checkout", "-q", "HEAD~1");
  const store = storeIn(repo);
  return { repo, store, treeA, treeB };
}

describe("switchVerified", () => {
  it("turns files into folders and back, symlinks into files, sets modes, and checks the result", async () => {
    const { repo, store, treeA, treeB } = await twoTrees();
    const state = await captureWorkTree(store, repo);
    expect(state.tree).toBe(treeA);
    await switchTrees(state, treeA, treeB, "B");
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, treeB));
    await switchTrees(state, treeB, treeA, "A");
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, treeA));
  });

  it("a few files written and none deleted (git restore): edits, a new file in a new folder, a symlink made a file, a mode", async () => {
    const repo = await gitdir({ a: "file a\n", exe: "#!/bin/sh\n" });
    symlinkSync("a", path.join(repo, "link"));
    const treeA = await committedTree(repo, "A");
    writeFileSync(path.join(repo, "a"), "edited\n");
    chmodSync(path.join(repo, "exe"), 0o755);
    rmSync(path.join(repo, "link"));
    writeFileSync(path.join(repo, "link"), "a regular file\n");
    writeFiles(repo, { "new/\u00e9t\u00e9.txt": "new\n" });
    const treeB = await committedTree(repo, "B");
    await git(repo, "checkout", "-q", "HEAD~1");
    const store = storeIn(repo);
    const state = await captureWorkTree(store, repo);
    await switchTrees(state, treeA, treeB, "B");
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, treeB));
    // The private index holds B exactly: the next capture stages nothing and finds B.
    const again = await captureWorkTree(store, repo);
    expect(again.tree).toBe(treeB);
    await switchTrees(again, treeB, treeA, "A");
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, treeA));
  });

  it("a few files deleted and written in one git process (restore): a folder a deletion empties goes too", async () => {
    const repo = await gitdir({ a: "file a\n", "keep/k": "k\n" });
    const treeA = await git(repo, "rev-parse", "HEAD^{tree}");
    writeFiles(repo, { a: "edited\n", "gone/deep/new.txt": "new\n", "keep/added": "added\n" });
    const treeB = await committedTree(repo, "B");
    const store = storeIn(repo);
    const state = await captureWorkTree(store, repo);
    expect(state.tree).toBe(treeB);
    const changes = await plannedSwitch(repo, treeB, treeA, "A");
    const trace = path.join(repo, ".git", "trace.json");
    process.env.GIT_TRACE2_EVENT = trace;
    try {
      await switchVerified(state, { from: treeB, to: treeA, what: "A", changes });
    } finally {
      delete process.env.GIT_TRACE2_EVENT;
    }
    const commands = readFileSync(trace, "utf8")
      .split("\n")
      .filter((line) => line.includes('"event":"start"'))
      .map((line) =>
        (JSON.parse(line) as { argv: string[] }).argv.find((a, i, all) => i > 0 && a !== "-c" && all[i - 1] !== "-c"),
      );
    expect(commands).toEqual(["restore"]);
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, treeA));
    expect(existsSync(path.join(repo, "gone"))).toBe(false);
    expect(readdirSync(path.join(repo, "keep"))).toEqual(["k"]);
    // The private index holds A exactly: the next capture stages nothing and finds A.
    expect((await captureWorkTree(store, repo)).tree).toBe(treeA);
  });

  it("turns a symlink to a folder back into the folder it replaced (what the link leads to is left alone)", async () => {
    const repo = await gitdir({ "out/a.txt": "mine\n", "src/a.txt": "source\n" });
    const treeA = await git(repo, "rev-parse", "HEAD^{tree}");
    rmSync(path.join(repo, "out"), { recursive: true });
    symlinkSync("src", path.join(repo, "out"));
    const treeB = await committedTree(repo, "B");
    const store = storeIn(repo);
    const state = await captureWorkTree(store, repo);
    expect(state.tree).toBe(treeB);
    await switchTrees(state, treeB, treeA, "A");
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, treeA));
    expect(readFileSync(path.join(repo, "src", "a.txt"), "utf8")).toBe("source\n");
  });

  it("writes and deletes file names that are not UTF-8, byte for byte", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const latin1Name = Buffer.from("caf\xe9.txt", "latin1"); // "café" in latin-1: not valid UTF-8
    const treeA = await git(repo, "rev-parse", "HEAD^{tree}");
    writeFileSync(Buffer.concat([Buffer.from(`${repo}/`), latin1Name]), "latin-1 name\n");
    const store = storeIn(repo);
    const state = await captureWorkTree(store, repo);
    const named = () => readdirSync(repo, { encoding: "buffer" }).some((n) => n.equals(latin1Name));
    await switchTrees(state, state.tree, treeA, "A");
    expect(named()).toBe(false);
    await switchTrees(state, treeA, state.tree, "B");
    expect(named()).toBe(true);
    expect(readFileSync(Buffer.concat([Buffer.from(`${repo}/`), latin1Name]), "utf8")).toBe("latin-1 name\n");
  });

  it("never overwrites a file edited after the capture: refuses and changes nothing", async () => {
    const { repo, store, treeA, treeB } = await twoTrees();
    const state = await captureWorkTree(store, repo);
    writeFileSync(path.join(repo, "exe"), "edited after the capture\n"); // exe is a path the switch touches
    await expect(switchTrees(state, treeA, treeB, "B")).rejects.toThrow(
      /files changed while the rewind was being prepared: exe/,
    );
    expect(readFileSync(path.join(repo, "exe"), "utf8")).toBe("edited after the capture\n");
    expect(readFileSync(path.join(repo, "a"), "utf8")).toBe("file a\n");
  });

  it("checks many files as it checks a few (git hashes them then): converted files switch, one edited after the capture is refused", async () => {
    // More files than nudge hashes itself (work-tree-switch.ts, IN_PROCESS_HASHES), each converted by git (eol=crlf), so only git's hash matches.
    const names = Array.from({ length: 40 }, (_, i) => `f${i}.txt`);
    const repo = await gitdir({
      ".gitattributes": "*.txt text eol=crlf\n",
      ...Object.fromEntries(names.map((n) => [n, "one\r\n"])),
    });
    const treeA = await git(repo, "rev-parse", "HEAD^{tree}");
    writeFiles(repo, Object.fromEntries(names.map((n) => [n, "two\r\n"])));
    const treeB = await committedTree(repo, "B");
    await git(repo, "checkout", "-q", "HEAD~1");
    const store = storeIn(repo);
    const state = await captureWorkTree(store, repo);
    expect(state.tree).toBe(treeA);
    await switchTrees(state, treeA, treeB, "B");
    expect(names.map((n) => readFileSync(path.join(repo, n), "utf8"))).toEqual(names.map(() => "two\r\n"));
    writeFileSync(path.join(repo, "f7.txt"), "edited after the capture\r\n");
    await expect(switchTrees(state, treeB, treeA, "A")).rejects.toThrow(
      /files changed while the rewind was being prepared: f7\.txt$/m,
    );
    expect(readFileSync(path.join(repo, "f7.txt"), "utf8")).toBe("edited after the capture\r\n");
    expect(readFileSync(path.join(repo, "f8.txt"), "utf8")).toBe("two\r\n");
  });

  it("refuses, changing nothing, when an ignored file would be lost", async () => {
    const { repo, store, treeA, treeB } = await twoTrees();
    writeFileSync(path.join(repo, "d", "keep.log"), "ignored, mine\n"); // d must become a file
    const state = await captureWorkTree(store, repo);
    const before = await workTreeListing(repo);
    await expect(switchTrees(state, treeA, treeB, "B")).rejects.toThrow(/ignored file in the way: d$/);
    expect(await workTreeListing(repo)).toEqual(before);
    expect(readFileSync(path.join(repo, "d", "keep.log"), "utf8")).toBe("ignored, mine\n");
  });

  it("switches files git converts on the way in and out (eol=crlf), and names that need quoting", async () => {
    const crlf = "one\r\ntwo\r\n";
    const odd = ['"quoted', "new\nline", "carriage\r"]; // git hash-object --stdin-paths must get these C-quoted
    const repo = await gitdir({
      ".gitattributes": "*.txt text eol=crlf\n",
      "a.txt": crlf,
      [odd[0]!]: "q\n",
      [odd[1]!]: "n\n",
      [odd[2]!]: "r\n",
    });
    const treeA = await git(repo, "rev-parse", "HEAD^{tree}");
    writeFiles(repo, { "a.txt": "one\r\nthree\r\n", [odd[0]!]: "q2\n", [odd[1]!]: "n2\n", [odd[2]!]: "r2\n" });
    const store = storeIn(repo);
    const state = await captureWorkTree(store, repo);
    // On disk a.txt has CRLF, its blob has LF: the check must compare what git records.
    await switchTrees(state, state.tree, treeA, "A");
    expect(readFileSync(path.join(repo, "a.txt"), "utf8")).toBe(crlf);
    expect(readFileSync(path.join(repo, odd[0]!), "utf8")).toBe("q\n");
    expect(readFileSync(path.join(repo, odd[1]!), "utf8")).toBe("n\n");
    expect(readFileSync(path.join(repo, odd[2]!), "utf8")).toBe("r\n");
  });

  it("switches a file committed with CRLF before text=auto was set (git keeps its CRLF then)", async () => {
    const repo = await gitdir({ "w.txt": "win\r\n" }); // the blob itself holds CRLF
    writeFiles(repo, { ".gitattributes": "* text=auto\n" });
    await git(repo, "add", ".gitattributes");
    await git(repo, "commit", "-q", "-m", "normalize from now on");
    const treeA = await git(repo, "rev-parse", "HEAD^{tree}");
    writeFiles(repo, { "w.txt": "win, edited\r\n" });
    const store = storeIn(repo);
    const state = await captureWorkTree(store, repo);
    await switchTrees(state, state.tree, treeA, "A");
    expect(readFileSync(path.join(repo, "w.txt"), "utf8")).toBe("win\r\n");
  });

  it("records a submodule's commit but never rewrites or deletes its files", async () => {
    const lib = await gitdir({ "lib.txt": "library\n" });
    const repo = await gitdir({ "a.txt": "a\n" });
    const treeA = await git(repo, "rev-parse", "HEAD^{tree}");
    await git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "sub");
    await git(repo, "commit", "-q", "-m", "add sub");
    const treeB = await git(repo, "rev-parse", "HEAD^{tree}");
    await git(path.join(repo, "sub"), "commit", "-q", "--allow-empty", "-m", "bump");
    writeFiles(repo, { "sub/work.txt": "uncommitted, in the submodule\n" });
    const store = storeIn(repo);
    const state = await captureWorkTree(store, repo); // the bumped commit

    await switchTrees(state, state.tree, treeB, "B"); // the submodule at its older commit
    await switchTrees(state, treeB, treeA, "A"); // before the submodule existed
    expect(readFileSync(path.join(repo, "sub/lib.txt"), "utf8")).toBe("library\n");
    expect(readFileSync(path.join(repo, "sub/work.txt"), "utf8")).toBe("uncommitted, in the submodule\n");
    expect(await git(path.join(repo, "sub"), "log", "-1", "--format=%s")).toBe("bump");
  });

  it("refuses to turn a submodule into a folder of files, writing nothing into it", async () => {
    const lib = await gitdir({ "lib.txt": "library\n" });
    const repo = await gitdir({ "a.txt": "a\n", "sub/x": "a plain folder then\n" });
    const treeA = await git(repo, "rev-parse", "HEAD^{tree}");
    await git(repo, "rm", "-q", "-r", "sub");
    await git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "sub");
    const store = storeIn(repo);
    const state = await captureWorkTree(store, repo);
    await expect(switchTrees(state, state.tree, treeA, "A")).rejects.toThrow(
      /^cannot rewrite the work tree to A: sub is a submodule on one side and a file or folder on the other$/,
    );
    expect(readdirSync(path.join(repo, "sub")).sort()).toEqual([".git", "lib.txt"]);
  });
});
