/**
 * The in-process discovery of the repository (what a hook of claude's uses instead of starting git)
 * against real git on real layouts: where it answers, it answers as `git rev-parse` does; where git
 * could decide otherwise, it leaves the answer to git.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { discoverRepo } from "../../src/snapshot/git-discovery.js";
import { fastRepoLocation } from "../../src/snapshot/repo-location.js";
import { git, gitdir, tempDir } from "../support/gitdir.js";

/** git's own answer, as repoLocation asks it. */
async function gitSays(cwd: string, env: Record<string, string> = {}) {
  const { execa } = await import("execa");
  const r = await execa(
    "git",
    ["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir", "--git-dir"],
    { cwd, env, reject: false },
  );
  if (r.exitCode !== 0) return null;
  const [root, commonDir, gitDir] = r.stdout.split("\n");
  return { root, commonDir, gitDir };
}

describe("discoverRepo", () => {
  it("answers as git does for a repository, a subfolder, a linked worktree and its subfolder, a symlinked path and a symlinked .git", async () => {
    const repo = await gitdir({ "README.md": "# x\n", "a/b/c.txt": "c\n" });
    const wt = path.join(tempDir(), "wt");
    await git(repo, "worktree", "add", "-q", wt, "-b", "side");
    mkdirSync(path.join(wt, "deep", "er"), { recursive: true });
    const link = path.join(tempDir(), "link");
    symlinkSync(path.join(repo, "a"), link);
    // A work tree whose .git is a link to the repository elsewhere.
    const outside = await gitdir({ "x.txt": "x\n" });
    const linkedTop = path.join(tempDir(), "linked-top");
    mkdirSync(linkedTop);
    symlinkSync(path.join(outside, ".git"), path.join(linkedTop, ".git"));
    for (const cwd of [repo, path.join(repo, "a", "b"), wt, path.join(wt, "deep", "er"), link, linkedTop]) {
      const found = discoverRepo(cwd, {});
      expect(found, cwd).not.toBeNull();
      expect(found, cwd).toEqual(await gitSays(cwd));
    }
  });

  it("leaves to git a bare repository, a git folder, a folder outside any repository, a moved work tree, an include, another git dir named in the environment", async () => {
    const repo = await gitdir({ "README.md": "# x\n" });
    const bare = path.join(tempDir(), "bare.git");
    await git(repo, "clone", "-q", "--bare", repo, bare);
    const plain = tempDir();
    const moved = await gitdir({ "m.txt": "m\n" });
    await git(moved, "config", "core.worktree", tempDir());
    const included = await gitdir({ "i.txt": "i\n" });
    writeFileSync(path.join(tempDir(), "extra"), "[core]\n");
    await git(included, "config", "include.path", "../extra");
    const cases: Array<[string, NodeJS.ProcessEnv]> = [
      [bare, {}],
      [path.join(repo, ".git"), {}],
      [path.join(repo, ".git", "refs"), {}],
      [plain, {}],
      [moved, {}],
      [included, {}],
      [repo, { GIT_DIR: bare }],
      [repo, { GIT_CEILING_DIRECTORIES: "/" }],
    ];
    for (const [cwd, env] of cases) expect(discoverRepo(cwd, env), cwd).toBeNull();
    // And the caller then has git's answer (or git's error) instead.
    expect(await fastRepoLocation(moved)).toEqual(await gitSays(moved));
    await expect(fastRepoLocation(plain)).rejects.toThrow(/not a git repository/);
  });

  it("leaves to git a submodule (its config names its work tree) and a .git file that names no repository", async () => {
    const sub = await gitdir({ "s.txt": "s\n" });
    const top = await gitdir({ "README.md": "# x\n" });
    await git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mod");
    expect(await gitSays(path.join(top, "mod"))).not.toBeNull();
    expect(discoverRepo(path.join(top, "mod"), {})).toBeNull();
    const broken = tempDir();
    writeFileSync(path.join(broken, ".git"), "gitdir: /nowhere/at/all\n");
    expect(discoverRepo(broken, {})).toBeNull();
  });
});
