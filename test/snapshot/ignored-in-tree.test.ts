/**
 * Which deleted paths a tree's ignore rules would ignore (a rewind leaves those on disk): the same
 * answer whether git is asked of every path or only of those some rule could match, over rules of
 * every kind (folders, globs, anchored, `**`, negations, brackets, escapes, case) in the tree's
 * .gitignore files, info/exclude and the user's excludes file; and no git asked when no rule can
 * match.
 */
import { execa } from "execa";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ignoredInTree } from "../../src/snapshot/ignored-in-tree.js";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";

afterEach(() => {
  delete process.env.GIT_TRACE2_EVENT;
});

const PATHS = [
  "build/out.js",
  "src/build.ts",
  "src/app.LOG",
  "src/app.txt",
  "docs/Notes.md",
  "docs/notes.md",
  "docs/keep.tmp",
  "docs/x.tmp",
  "a/b/c/deep.cache",
  "a/b/c/other.txt",
  "vendor/lib/x.min.js",
  "lib/x.js",
  "gen/[id].ts",
  "data/file1.csv",
  "data/file10.csv",
  "top.secret",
  "nested/top.secret",
  "caf\u00c3\u00a9/menu.txt",
  "n/inner/ignored-here.txt",
];

describe("ignoredInTree", () => {
  it("answers as git does, asking git only of paths some rule could match", async () => {
    const repo = await gitdir({
      ".gitignore": "/build/\n*.log\n# a comment\n*.tmp\n!docs/keep.tmp\n**/c/*.cache\n/top.secret\ndata/file?.csv\n",
      "n/.gitignore": "inner/\n",
      "vendor/.gitignore": "*.min.js\n",
      "README.md": "r\n",
    });
    const tree = (await git(repo, "rev-parse", "HEAD^{tree}")).trim();
    const exclude = path.join(repo, ".git", "info", "exclude");
    const user = path.join(tempDir(), "ignore");
    writeFileSync(exclude, "docs/notes.md\n");
    writeFileSync(user, "caf\u00e9/\n");
    // Git's own answer, every path asked (git's default excludes file replaced by the user's).
    await git(repo, "config", "core.excludesFile", user);
    const asGit = await ignoredInTree(repo, tree, PATHS, path.join(tempDir(), "s"));
    expect([...asGit].sort()).toEqual(
      [
        "build/out.js",
        "docs/notes.md",
        "docs/x.tmp",
        "a/b/c/deep.cache",
        "vendor/lib/x.min.js",
        "data/file1.csv",
        "top.secret",
        "caf\u00c3\u00a9/menu.txt",
        "n/inner/ignored-here.txt",
      ].sort(),
    );
    // Filtered first: the same answer.
    const filtered = await ignoredInTree(repo, tree, PATHS, path.join(tempDir(), "s"), [exclude, user]);
    expect([...filtered].sort()).toEqual([...asGit].sort());
    // With the case folded too (core.ignoreCase), and with a rule the filter cannot read (git asked of all).
    await git(repo, "config", "core.ignoreCase", "true");
    const folded = await ignoredInTree(repo, tree, PATHS, path.join(tempDir(), "s"));
    expect([...(await ignoredInTree(repo, tree, PATHS, path.join(tempDir(), "s"), [exclude, user]))].sort()).toEqual(
      [...folded].sort(),
    );
    expect(folded.has("docs/Notes.md")).toBe(true);
    writeFileSync(exclude, "gen/\\[id\\].ts\n");
    const escaped = await ignoredInTree(repo, tree, ["gen/[id].ts"], path.join(tempDir(), "s"), [exclude, user]);
    expect([...escaped]).toEqual(["gen/[id].ts"]);
  });

  it("reads rules as git does: a byte order mark, CRLF lines with trailing spaces, a folder named .gitignore, a relative excludes file", async () => {
    const repo = await gitdir({
      ".gitignore": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("*.bom\r\n*.sp  \r\nfoo \r\n")]),
      "a/.gitignore/x": "a folder, not rules\n",
      "b/.gitignore": "*.keep\n",
      "README.md": "r\n",
    } as unknown as Record<string, string>);
    await git(repo, "config", "core.excludesFile", ".git/rel-excl");
    writeFileSync(path.join(repo, ".git", "rel-excl"), "*.rel\n");
    const tree = (await git(repo, "rev-parse", "HEAD^{tree}")).trim();
    const paths = ["x.bom", "y.sp", "foo", "b/z.keep", "b/z.txt", "r.rel", "sub/r.rel", "plain.txt"];
    // git's own answer, asked in the work tree itself (the rules as they stand there are the tree's).
    const { stdout } = await execa("git", ["check-ignore", "--no-index", "--stdin", "-z"], {
      cwd: repo,
      input: paths.join("\0") + "\0",
      reject: false,
    });
    const asGit = stdout.split("\0").filter(Boolean).sort();
    expect(asGit).toEqual(["b/z.keep", "foo", "r.rel", "sub/r.rel", "x.bom", "y.sp"]);
    const outside = [path.join(repo, ".git", "info", "exclude"), path.join(repo, ".git", "rel-excl")];
    expect([...(await ignoredInTree(repo, tree, paths, path.join(tempDir(), "s"), outside))].sort()).toEqual(asGit);
  });

  it("starts no check-ignore, and leaves no scratch folder, when no rule can match", async () => {
    const repo = await gitdir({ ".gitignore": "node_modules/\n*.log\n", "README.md": "r\n" });
    writeFiles(repo, { "src/a.ts": "a\n" });
    const tree = (await git(repo, "rev-parse", "HEAD^{tree}")).trim();
    const trace = path.join(tempDir(), "trace.json");
    const scratch = path.join(tempDir(), "scratch");
    process.env.GIT_TRACE2_EVENT = trace;
    const outside = [path.join(repo, ".git", "info", "exclude"), path.join(tempDir(), "no-such-ignore")];
    expect([...(await ignoredInTree(repo, tree, ["src/a.ts", "added/turn-4.ts"], scratch, outside))]).toEqual([]);
    const started = readFileSync(trace, "utf8")
      .split("\n")
      .filter((line) => line.includes('"event":"start"'));
    expect(started.map((line) => (line.includes("check-ignore") ? "check-ignore" : "other"))).toEqual(["other"]);
    expect(existsSync(scratch)).toBe(false);
    // A path a rule matches is asked of git, and found.
    expect([...(await ignoredInTree(repo, tree, ["src/a.ts", "logs/x.log"], scratch, outside))]).toEqual([
      "logs/x.log",
    ]);
  });
});
