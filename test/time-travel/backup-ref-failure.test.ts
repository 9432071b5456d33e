/**
 * A rewind whose backup ref cannot be written (a file where git's ref folder goes) says so in one
 * line, changes nothing and leaves nothing behind: once the cause is gone, the next rewind goes ahead, not refused as one
 * "interrupted halfway". Real claude, scripted API, the built CLI.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

it("a backup ref that cannot be written leaves no record of a rewind begun", async () => {
  const repo = await gitdir({ "README.md": "# app\n" });
  recorded = await recordSession(
    repo,
    [{ tool: "Write", input: { file_path: path.join(repo, "one.txt"), content: "1\n" } }, { text: "Wrote one." }],
    ["write one"],
  );
  mkdirSync(path.join(repo, ".git", "refs", "nudge"), { recursive: true });
  writeFileSync(path.join(repo, ".git", "refs", "nudge", "backup"), "not a folder\n");
  const failed = await runNudge(["session", "rewind", recorded.id, "0", "--yes"], { cwd: repo });
  // The user's to fix, said in one line with git's reason (it was "nudge bug", exit 2).
  expect(failed.exitCode).toBe(1);
  expect(failed.stderr).toMatch(/^error: git cannot write here: .*non-directory in the way/m);
  expect(failed.stderr).toContain("hint: check that the repository and its .git folder can be written");
  expect(existsSync(path.join(repo, "one.txt"))).toBe(true);

  rmSync(path.join(repo, ".git", "refs", "nudge", "backup"));
  const again = await runNudge(["session", "rewind", recorded.id, "0", "--yes"], { cwd: repo });
  expect(again.stderr).not.toContain("interrupted");
  expect(again.exitCode, again.stderr).toBe(0);
  expect(existsSync(path.join(repo, "one.txt"))).toBe(false);
});
