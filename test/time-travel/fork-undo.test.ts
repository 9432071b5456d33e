/** Undoing a fork put in place abandons it: `claude run -c` goes back to the session it was forked from. Real claude, scripted API. */
import { execa } from "execa";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { readManifestFile, recordSession, runClaude, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

/** A session of two turns: the first writes one.txt, the second two.txt. */
function twoTurns(repo: string): Promise<Recorded> {
  return recordSession(
    repo,
    [
      { tool: "Write", input: { file_path: path.join(repo, "one.txt"), content: "1\n" } },
      { text: "Wrote one." },
      { tool: "Write", input: { file_path: path.join(repo, "two.txt"), content: "2\n" } },
      { text: "Wrote two." },
    ],
    ["write one", "write two"],
  );
}

describe("fork in place, then --undo", () => {
  it("fork X 1 --yes, rewind --undo, then claude run -c continues X, not the abandoned fork", async () => {
    const repo = await gitdir({ "README.md": "# app\n" });
    recorded = await twoTurns(repo);
    const fork = await runNudge(["session", "fork", recorded.id, "1", "--yes"], { cwd: repo });
    expect(fork.exitCode, fork.stderr).toBe(0);
    const forkId = /→ (\w+)/.exec(fork.stdout)![1]!;
    // Named as the fork it is, in the plan and the list of backups (both said "rewind").
    const dry = await runNudge(["session", "rewind", "--undo", "--dry-run"], { cwd: repo });
    expect(dry.stdout).toContain(`undo the fork of session ${recorded.id} at turn 1`);
    expect(dry.stdout).toContain(`the fork ${forkId} stays recorded`);
    const backups = await runNudge(["session", "backups"], { cwd: repo });
    expect(backups.stdout).toContain(`fork (${forkId})`);
    expect(backups.stdout).toContain("puts back the files from before this fork");
    // Without a terminal an undo needs --yes, as a rewind does (before: it went ahead unasked).
    const unasked = await runNudge(["session", "rewind", "--undo"], { cwd: repo });
    expect(unasked.exitCode).toBe(1);
    expect(unasked.stderr).toBe(
      "error: not confirmed: there is no terminal to ask\nhint: pass --yes to go ahead (see --dry-run first)",
    );
    expect(existsSync(path.join(repo, "two.txt"))).toBe(false); // still the fork's code
    const undo = await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo });
    expect(undo.exitCode, undo.stderr).toBe(0);
    // Before: "undid the rewind of <id> to turn 1", and -c went on in the fork.
    expect(undo.stdout).toContain(
      `undid the fork of ${recorded.id} at turn 1: the files are as they were before it; the fork ${forkId} stays recorded`,
    );
    // The list names forks among what was undone (it said "every rewind listed").
    expect((await runNudge(["session", "backups"], { cwd: repo })).stdout).toContain(
      "nothing to undo: every rewind and fork listed was undone or failed",
    );

    recorded.api.push({ text: "Going on." });
    const run = await runClaude(repo, ["-c", "what next?"], recorded.env);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(`continuing session ${recorded.id}`);
    expect(readManifestFile(recorded.dir).turns).toHaveLength(4);
    expect(readManifestFile(path.join(repo, ".git", "nudge", "sessions", forkId)).turns).toHaveLength(2);
  });

  it("an undo of a fork removed since says the fork is gone, not that it stays recorded", async () => {
    const repo = await gitdir({ "README.md": "# app\n" });
    recorded = await twoTurns(repo);
    const fork = await runNudge(["session", "fork", recorded.id, "1", "--yes"], { cwd: repo });
    const forkId = /→ (\w+)/.exec(fork.stdout)![1]!;
    expect((await runNudge(["session", "rm", forkId, "--yes"], { cwd: repo })).exitCode).toBe(0);
    const dry = await runNudge(["session", "rewind", "--undo", "--dry-run"], { cwd: repo });
    expect(dry.stdout).toContain(`the fork ${forkId} was removed since)`);
    const undo = await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo });
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(
      new RegExp(`^undid the fork of ${recorded.id} at turn 1: the files are as they were before it$`, "m"),
    );
    expect(undo.stdout).not.toContain("stays recorded");
    expect(readFileSync(path.join(repo, "two.txt"), "utf8")).toBe("2\n");
  });

  it("a fork whose switch fails leaves no fork: the files and the sessions as they were, the switch's error told", async () => {
    const repo = await gitdir({ "README.md": "# app\n" });
    recorded = await twoTurns(repo);
    const sessions = path.join(repo, ".git", "nudge", "sessions");
    const before = readdirSync(sessions).sort();
    // The fork's folder is built while the files are switched: the switch fails on a full disk.
    const fork = await runNudge(["session", "fork", recorded.id, "1", "--yes"], {
      cwd: repo,
      env: { NUDGE_FAULT: "switch-before-write:enospc" },
    });
    expect(fork.exitCode).toBe(1);
    expect(fork.stderr).toMatch(
      /^error: cannot rewrite the work tree to turn 1: .*the files it touched were put back/m,
    );
    expect(readdirSync(sessions).sort()).toEqual(before);
    expect(readFileSync(path.join(repo, "two.txt"), "utf8")).toBe("2\n");
    const list = await runNudge(["session", "list", "--json"], { cwd: repo });
    expect(JSON.parse(list.stdout).map((s: { id: string }) => s.id)).toEqual([recorded.id]);
  });

  it("a fork that cannot be made once its files are switched says so, and --undo puts them back", async () => {
    const repo = await gitdir({ "README.md": "# app\n" });
    recorded = await twoTurns(repo);
    const fork = await runNudge(["session", "fork", recorded.id, "1", "--yes"], {
      cwd: repo,
      env: { NUDGE_FAULT: "fork-building:enospc" },
    });
    expect(fork.exitCode).toBe(1);
    expect(fork.stderr).toMatch(
      new RegExp(`^error: the files are at turn 1 of ${recorded.id}, but its fork could not be made: .*ENOSPC`, "m"),
    );
    expect(fork.stderr).toContain("hint: put the files back with: nudge session rewind --undo");
    // No fork made, and no ref of one left behind.
    const refs = await execa("git", ["for-each-ref", "--format=%(refname)", "refs/nudge/sessions/"], { cwd: repo });
    expect(refs.stdout.split("\n").filter(Boolean)).toEqual([`refs/nudge/sessions/${recorded.id}`]);
    expect(readdirSync(path.join(repo, ".git", "nudge", "sessions"))).toEqual([recorded.id]);
    expect(existsSync(path.join(repo, "two.txt"))).toBe(false);
    const undo = await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo });
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(readFileSync(path.join(repo, "two.txt"), "utf8")).toBe("2\n");
  });
});
