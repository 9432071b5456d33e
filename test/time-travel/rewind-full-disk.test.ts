/**
 * Issue 23.7: a full disk while a rewind moves HEAD and the index back, after the files were put
 * back. The message was several lines of git's stderr with no disk-space hint, and the hint
 * `nudge session rewind --undo` would have restored the rewind before this one. Now: one line
 * saying the disk is full, and the commands that finish this rewind or roll it back.
 * The full disk comes from NUDGE_FAULT=rewind-head:enospc (the write fails as ENOSPC), at the one
 * step between the files and HEAD; a real tmpfs cannot be filled at exactly that step.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, gitdir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

describe("a full disk while a rewind resets HEAD", () => {
  it("one line with the cause, and --continue / --abort for this rewind (not --undo, which would restore the one before)", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    const base = await git(repo, "rev-parse", "HEAD");
    recorded = await recordSession(
      repo,
      [
        {
          tool: "Bash",
          input: {
            command: "echo c > c.txt && git add c.txt && git commit -qm 'claude commit'",
            description: "commit",
          },
        },
        { text: "committed" },
      ],
      ["commit something"],
    );
    const claudeCommit = await git(repo, "rev-parse", "HEAD");
    // An earlier rewind, applied: the one --undo would restore.
    expect(
      (await runNudge(["session", "rewind", recorded.id, "0", "--code-only", "--yes"], { cwd: repo })).exitCode,
    ).toBe(0);
    expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).exitCode).toBe(0);

    const full = await runNudge(["session", "rewind", recorded.id, "0", "--reset-head", "--yes"], {
      cwd: repo,
      env: { NUDGE_FAULT: "rewind-head:enospc" },
    });
    expect(full.exitCode, full.stderr).toBe(1);
    expect(full.stderr).toBe(
      "error: the files are at turn 0, but moving HEAD and the index back failed: the disk is full\n" +
        "hint: free some disk space, then finish this rewind with: nudge session rewind --continue (or put everything back as it was: nudge session rewind --abort)",
    );
    expect(existsSync(path.join(repo, "c.txt"))).toBe(false);
    expect(await git(repo, "rev-parse", "HEAD")).toBe(claudeCommit);

    const finished = await runNudge(["session", "rewind", "--continue", "--yes"], { cwd: repo });
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(await git(repo, "rev-parse", "HEAD")).toBe(base);
    expect(await git(repo, "status", "--porcelain")).toBe("");
    // And --undo now restores this rewind: HEAD back at claude's commit, c.txt back.
    expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).exitCode).toBe(0);
    expect(await git(repo, "rev-parse", "HEAD")).toBe(claudeCommit);
    expect(existsSync(path.join(repo, "c.txt"))).toBe(true);
  }, 90_000);
});
