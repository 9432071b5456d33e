/**
 * Once nudge pins the repository it found (a sandboxed loop does, before claude runs), its git in
 * that work tree keeps to it: a `.git` claude makes below (a `git init`) cannot send nudge's git to
 * a config of claude's making, with a clean filter or an fsmonitor program in it.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pinRepository, run, text } from "../../src/snapshot/git-process.js";
import { syncRepository } from "../../src/snapshot/git-remote.js";
import { git, gitdir, tempDir } from "../support/gitdir.js";

describe("a pinned repository", () => {
  it("is the one nudge's git uses in its work tree, whatever .git appears below it", async () => {
    const repo = await gitdir({ "sub/a.txt": "a\n" });
    const sub = path.join(repo, "sub");
    const marker = path.join(tempDir(), "filter-ran");
    await git(sub, "init", "-q", ".");
    await git(sub, "config", "filter.evil.clean", `touch ${marker}; cat`);
    writeFileSync(path.join(sub, ".gitattributes"), "* filter=evil\n");
    expect(await text(sub, ["rev-parse", "--absolute-git-dir"])).toBe(path.join(sub, ".git"));

    pinRepository(repo, path.join(repo, ".git"));
    expect(await text(sub, ["rev-parse", "--absolute-git-dir"])).toBe(path.join(repo, ".git"));
    const index = path.join(tempDir(), "index");
    await run(sub, ["add", "-A", "--ignore-errors", "--", ":/"], { indexFile: index, tolerate: () => true });
    expect(existsSync(marker)).toBe(false);
    // Outside the pinned work tree git finds its repository as ever.
    const other = await gitdir();
    expect(await text(other, ["rev-parse", "--absolute-git-dir"])).toBe(path.join(other, ".git"));
  });

  it("leaves git run in the git dir to find its own: nudge's store keeps its bare and scratch repositories there", async () => {
    const repo = await gitdir();
    pinRepository(repo, path.join(repo, ".git"));
    const store = path.join(repo, ".git", "nudge");
    mkdirSync(store);
    await run(store, ["init", "-q", "--bare", "scratch.git"]);
    const scratch = path.join(store, "scratch.git");
    expect(await text(scratch, ["rev-parse", "--absolute-git-dir"])).toBe(scratch);
    expect(await text(scratch, ["rev-parse", "--is-bare-repository"])).toBe("true");
    // The sync's own repository, made with the caller's repository variables unset, as ever.
    const remote = await syncRepository(path.join(store, "remote.git"), "sha1");
    expect(await text(remote, ["rev-parse", "--absolute-git-dir"])).toBe(remote);
    // The work tree itself stays pinned.
    expect(await text(repo, ["rev-parse", "--absolute-git-dir"])).toBe(path.join(repo, ".git"));
  });
});
