/** The pre-push hook with git config nudge.push set to what nudge does not know: said on the push, not taken silently for off. */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

describe("nudge.push", () => {
  it("a typo of auto is said on the push's output; off, auto in any case, and unset say nothing", async () => {
    const repo = await gitdir();
    const server = path.join(tempDir(), "srv.git");
    await git(path.dirname(server), "init", "-q", "--bare", server);
    await git(repo, "remote", "add", "origin", server);
    const head = (await git(repo, "rev-parse", "HEAD")).trim();
    const input = `refs/heads/main ${head} refs/heads/main ${"0".repeat(40)}\n`;
    const hook = () => runNudge(["hooks", "pre-push", "origin", server], { cwd: repo, input });
    await git(repo, "config", "nudge.push", "atuo");
    const typo = await hook();
    expect(typo.exitCode, typo.stderr).toBe(0);
    expect(typo.stderr).toBe(
      'nudge: git config nudge.push is "atuo", which nudge does not know ("auto" publishes, "off" does not): nothing was published',
    );
    await git(repo, "config", "nudge.push", "off");
    expect((await hook()).stderr).toBe("");
    // Case does not matter, as for git's own words.
    await git(repo, "config", "nudge.push", "Off");
    expect((await hook()).stderr).toBe("");
    await git(repo, "config", "nudge.push", "AUTO");
    expect((await hook()).stderr).toBe("");
    await git(repo, "config", "--unset", "nudge.push");
    expect((await hook()).stderr).toBe("");
  });
});
