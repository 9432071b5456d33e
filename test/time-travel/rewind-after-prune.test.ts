/**
 * The work tree's kept index (what makes a rewind's capture one status scan) names objects only
 * the snapshots of the sessions it was rewound to keep alive. After `nudge session rm` of such a
 * session and `git gc --prune=now`, the next rewind must still capture the work tree as it is.
 * Through the built CLI with the real claude binary and the scripted API on a real temp repository.
 */
import { execa } from "execa";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

const recorded: Recorded[] = [];
afterEach(async () => {
  for (const r of recorded.splice(0)) await r.api.close();
});

/** The tree git would snapshot for the work tree now (tracked + untracked, not ignored), without touching the user's index. */
async function workTreeTree(repo: string): Promise<string> {
  const env = { GIT_INDEX_FILE: path.join(tempDir("nudge-qa-index-"), "index") };
  await execa("git", ["add", "-A"], { cwd: repo, env });
  return (await execa("git", ["write-tree"], { cwd: repo, env })).stdout.trim();
}

const record = async (repo: string, command: string) => {
  const session = await recordSession(repo, [{ tool: "Bash", input: { command } }, { text: "done" }], ["go"]);
  recorded.push(session);
  return session;
};

it("rewinds after the session the work tree was last rewound to was removed and git pruned its objects", async () => {
  const repo = await gitdir({ "a.txt": "a\n" });
  const kept = await record(repo, "echo kept > other.txt");
  const removed = await record(repo, "echo only in the removed session > gen.txt");
  const rewind = (id: string, turn: string) => runNudge(["session", "rewind", id, turn, "--yes"], { cwd: repo });
  // The kept index ends up holding the removed session's turn 1, whose file no other snapshot has.
  expect((await rewind(removed.id, "0")).exitCode).toBe(0);
  expect((await rewind(removed.id, "1")).exitCode).toBe(0);
  expect((await runNudge(["session", "rm", removed.id, "--yes"], { cwd: repo })).exitCode).toBe(0);
  await git(repo, "gc", "-q", "--prune=now");

  const turns = JSON.parse((await runNudge(["session", "show", kept.id, "--json"], { cwd: repo })).stdout).turns;
  const toOne = await rewind(kept.id, "1");
  expect(toOne.exitCode, toOne.stderr).toBe(0);
  expect(toOne.stdout).toMatch(/delete\s+gen\.txt/);
  expect(await workTreeTree(repo)).toBe(turns[1].snapshot.tree);

  // The index it started over with serves the next rewind (a file of the user's is backed up, then removed).
  writeFileSync(path.join(repo, "later.txt"), "later\n");
  await git(repo, "gc", "-q", "--prune=now");
  const toZero = await rewind(kept.id, "0");
  expect(toZero.exitCode, toZero.stderr).toBe(0);
  expect(await workTreeTree(repo)).toBe(turns[0].snapshot.tree);
});
