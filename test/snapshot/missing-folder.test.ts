import { execa } from "execa";
import { rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/base/errors.js";
import * as git from "../../src/snapshot/git.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

describe("git in a folder that is gone", () => {
  it("says the folder no longer exists (a removed worktree), not that git is missing", async () => {
    const repo = await gitdir();
    rmSync(repo, { recursive: true, force: true });
    const error = await git.headCommit(repo).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).message).toBe(`the folder ${repo} no longer exists`);
  });
});

describe("a folder with no work tree", () => {
  it("inside .git, or a bare repository: says so, and how to get a work tree", async () => {
    const repo = await gitdir();
    const inGitDir = await runNudge(["session", "list"], { cwd: path.join(repo, ".git") });
    expect(inGitDir.exitCode).toBe(1);
    expect(inGitDir.stderr).toMatch(
      /^error: .*\.git is inside a \.git folder: there are no files to work on\nhint: run nudge in a work tree/m,
    );
    const bare = path.join(tempDir("nudge-bare-"), "b.git");
    await execa("git", ["init", "-q", "--bare", bare]);
    const inBare = await runNudge(["session", "list"], { cwd: bare });
    expect(inBare.stderr).toMatch(/^error: .*b\.git is a bare repository/m);
  });
});
