/** A repository copied with its store (`cp -a repo repo-copy`): its sessions' code lives in the original. */
import { execa } from "execa";
import { cpSync, existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile, recordSession, runClaude, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

const refs = async (repo: string) => (await execa("git", ["for-each-ref", "refs/nudge"], { cwd: repo })).stdout;

describe("a session recorded in the repository this one was copied from", () => {
  it("is not resumed, rewound or forked from the copy: claude would run in the original and its snapshots land there (from QA)", async () => {
    const repo = await gitdir();
    recorded = await recordSession(
      repo,
      [
        { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "1\n" } },
        { text: "one" },
        { text: "two" },
      ],
      ["one", "two"],
    );
    const copy = path.join(tempDir(), "copy");
    cpSync(repo, copy, { recursive: true, verbatimSymlinks: true });
    const before = { refs: await refs(repo), turns: readManifestFile(recorded.dir).turns.length };
    recorded.api.push(
      { tool: "Write", input: { file_path: path.join(repo, "c.txt"), content: "c\n" } },
      { text: "wrote c" },
    );

    // (A rewind or a fork in place already refused a session of another work tree; `-r` and a fork into a worktree did not.)
    const message = new RegExp(
      `^error: session ${recorded.id} was recorded in ${repo.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, (which is not a work tree of this repository|not in this work tree)`,
      "m",
    );
    for (const args of [
      ["claude", "-r", recorded.id],
      ["session", "rewind", recorded.id, "1", "--yes"],
      ["session", "fork", recorded.id, "1", "--yes"],
      ["session", "fork", recorded.id, "1", "--worktree", path.join(tempDir(), "wt")],
    ]) {
      const run =
        args[0] === "claude"
          ? await runClaude(copy, args.slice(1), recorded.env, "write c\n")
          : await runNudge(args, { cwd: copy });
      expect(run.exitCode, `${args.join(" ")}: ${run.stderr}`).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/^hint: .*cd /m);
    }
    // Nothing happened in the original: no file written by claude, no ref moved, no turn added.
    expect(existsSync(path.join(repo, "c.txt"))).toBe(false);
    expect(await refs(repo)).toBe(before.refs);
    expect(readManifestFile(recorded.dir).turns).toHaveLength(before.turns);
    // In the original, the session goes on as before.
    const there = await runClaude(repo, ["-r", recorded.id], recorded.env, "write c\n");
    expect(there.exitCode, there.stderr).toBe(0);
    expect(existsSync(path.join(repo, "c.txt"))).toBe(true);
  });
});
