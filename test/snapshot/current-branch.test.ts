/** The branch checked out, as the session's header and the pre-push hook name it: never git's disambiguated short form. */
import { describe, expect, it } from "vitest";
import { currentBranch } from "../../src/snapshot/git.js";
import { pushedBranches } from "../../src/sync/push-hook.js";
import { git, gitdir } from "../support/gitdir.js";

describe("currentBranch", () => {
  it("is the branch's own name even when a tag has it too, and null when HEAD is detached", async () => {
    const repo = await gitdir();
    // With a tag "main", `symbolic-ref --short HEAD` says "heads/main": no session would match the branch pushed.
    await git(repo, "tag", "main");
    expect(await currentBranch(repo)).toBe("main");
    const head = (await git(repo, "rev-parse", "HEAD")).trim();
    expect(await pushedBranches(repo, `HEAD ${head} refs/heads/main ${"0".repeat(40)}\n`)).toEqual(["main"]);
    await git(repo, "checkout", "-q", "--detach");
    expect(await currentBranch(repo)).toBeNull();
    expect(await pushedBranches(repo, `HEAD ${head} refs/heads/main ${"0".repeat(40)}\n`)).toEqual([]);
  });
});
