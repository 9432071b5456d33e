/**
 * A rewind to a turn before a file existed, where a later turn put that file under .gitignore.
 * Reproduced through the built CLI with the real claude binary and the scripted API on real temp
 * repositories.
 */
import { execa } from "execa";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

/** The tree git would snapshot for the work tree now (tracked + untracked, not ignored), without touching the user's index. */
async function workTreeTree(repo: string): Promise<string> {
  const index = path.join(tempDir("nudge-qa-index-"), "index");
  const env = { GIT_INDEX_FILE: index };
  await execa("git", ["add", "-A"], { cwd: repo, env });
  return (await execa("git", ["write-tree"], { cwd: repo, env })).stdout.trim();
}

/** Turn 1 makes gen.txt; turn 2 puts it under .gitignore. */
function makeThenIgnore(repo: string): Promise<Recorded> {
  return recordSession(
    repo,
    [
      { tool: "Bash", input: { command: "echo 1 > gen.txt" } },
      { text: "made gen.txt" },
      { tool: "Bash", input: { command: "echo gen.txt >> .gitignore" } },
      { text: "ignored it" },
    ],
    ["make gen", "ignore gen"],
  );
}

describe("rewind", () => {
  it("to a turn before a file existed removes it, even when a later turn put it under .gitignore", async () => {
    // Turn 1 creates gen.txt; turn 2 adds gen.txt to .gitignore. At turn 0, gen.txt did not exist and
    // was not ignored. Rewinding to 0 restored .gitignore but left gen.txt behind as an untracked file
    // (the plan did not name it), so the work tree was turn 1's tree, not turn 0's — and it said "rewound".
    const repo = await gitdir({ "a.txt": "a\n", ".gitignore": "*.log\n" });
    recorded = await makeThenIgnore(repo);
    const show = JSON.parse((await runNudge(["session", "show", recorded.id, "--json"], { cwd: repo })).stdout);
    const turn0Tree: string = show.turns[0].snapshot.tree;
    const rewind = await runNudge(["session", "rewind", recorded.id, "0", "--yes"], { cwd: repo });
    expect(rewind.exitCode, rewind.stderr).toBe(0);
    expect(rewind.stdout).toMatch(/delete\s+gen\.txt/); // the plan names it
    expect(await workTreeTree(repo)).toBe(turn0Tree);
    expect(existsSync(path.join(repo, "gen.txt"))).toBe(false);
    // No tree could hold it, so the rewind's record does: --undo brings it back.
    const plan = await runNudge(["session", "rewind", "--undo", "--dry-run"], { cwd: repo });
    expect(plan.stdout).toMatch(/write\s+gen\.txt/);
    const undo = await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo });
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(readFileSync(path.join(repo, "gen.txt"), "utf8")).toBe("1\n");
    expect(readFileSync(path.join(repo, ".gitignore"), "utf8")).toBe("*.log\ngen.txt\n");
  });

  it("in a folder whose name is not ASCII, and with an undo killed halfway then finished: the file comes back", async () => {
    const made = await gitdir({ "a.txt": "a\n", ".gitignore": "*.log\n" });
    const repo = path.join(tempDir("nudge-zoe-"), "zoë café");
    mkdirSync(path.dirname(repo), { recursive: true });
    renameSync(made, repo);
    recorded = await makeThenIgnore(repo);
    const rewind = await runNudge(["session", "rewind", recorded.id, "0", "--yes"], { cwd: repo });
    expect(rewind.exitCode, rewind.stderr).toBe(0);
    expect(existsSync(path.join(repo, "gen.txt"))).toBe(false);
    const killed = await execa("node", [NUDGE_CLI, "session", "rewind", "--undo", "--yes"], {
      cwd: repo,
      env: { NUDGE_FAULT: "undo-after-record:kill" },
      reject: false,
      detached: true,
    });
    expect(killed.signal).toBe("SIGKILL");
    const finished = await runNudge(["session", "rewind", "--continue", "--yes"], { cwd: repo });
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(readFileSync(path.join(repo, "gen.txt"), "utf8")).toBe("1\n");
  });
});
