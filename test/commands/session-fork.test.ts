/**
 * `nudge session fork --worktree` prints a command line to paste. On a real recording (real claude
 * binary, scripted API), with a worktree path a shell would split and expand, that line must run
 * as printed: `cd` into the worktree, and nothing else.
 */
import { execa } from "execa";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { recordThreeTurnsForFile } from "../support/three-turns.js";

let repo: string;
let id: string;

recordThreeTurnsForFile((recorded) => ({ repo, id } = recorded));

describe("nudge session fork --worktree", () => {
  it("prints a continue line that a shell runs as printed, whatever the worktree path holds", async () => {
    const scratch = tempDir();
    // `$(touch …)` would leave a file behind if the printed line let the shell expand it.
    const worktree = path.join(scratch, "with space $(touch pwned) it's");
    const run = await runNudge(["session", "fork", id, "2", "--worktree", worktree], { cwd: repo });
    expect(run.exitCode, run.stderr).toBe(0);

    const line = run.stdout.split("\n").find((l) => l.startsWith("continue it: "));
    const printed = /^continue it: (cd .+) && nudge claude run -r (\w+)$/.exec(line ?? "");
    expect(printed, run.stdout).not.toBeNull();
    expect(printed![1]).toBe(`cd '${scratch}/with space $(touch pwned) it'\\''s'`);

    // Run the pasted `cd` part in a real shell, from somewhere else, and see where it lands.
    const shell = await execa("sh", ["-c", `${printed![1]} && pwd -P`], { cwd: scratch, reject: false });
    expect(shell.exitCode, shell.stderr).toBe(0);
    expect(shell.stdout).toBe(worktree);
    expect(existsSync(path.join(scratch, "pwned"))).toBe(false);
    expect(existsSync(path.join(worktree, "notes.txt"))).toBe(true);
  });
});
