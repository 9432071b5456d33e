import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.js";
import * as git from "../../src/snapshot/git.js";
import { gitdir } from "../support/gitdir.js";

describe("git in a folder that is gone", () => {
  it("says the folder no longer exists (a removed worktree), not that git is missing", async () => {
    const repo = await gitdir();
    rmSync(repo, { recursive: true, force: true });
    const error = await git.headCommit(repo).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).message).toBe(`the folder ${repo} no longer exists`);
  });
});
