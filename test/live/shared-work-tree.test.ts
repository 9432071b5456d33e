/**
 * Two recordings in one work tree (issue 22, item 11): the second started with `claude run
 * --force` while the first's turn is held open by the scripted API. Neither can tell whose change
 * a file is, so both say so: a warning at the second's start, a warning and a mark on every turn
 * that overlapped the other ("shared work tree", in turns.jsonl, `session show` and `session
 * diff`), and a rewind of the first that keeps those files unless --include-shared, instead of
 * deleting the second's file as its own. Real claude binaries, real git.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";

const run = (repo: string, env: Record<string, string>, prompt: string, extra: string[] = []) =>
  runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits", ...extra], {
    cwd: repo,
    env,
    input: `${prompt}\n`,
  });

describe("a second recording in the same work tree (--force)", () => {
  it("is warned about at start, marks the overlapping turns of both, and a rewind keeps the other's file", async () => {
    const repo = await gitdir();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const api1 = await startScriptedApi([
      { after: held, then: { tool: "Write", input: { file_path: path.join(repo, "one.txt"), content: "1\n" } } },
      { text: "Wrote one." },
    ]);
    const api2 = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "two.txt"), content: "2\n" } },
      { text: "Wrote two." },
    ]);
    try {
      const first = run(repo, claudeEnv(api1, path.join(tempDir("nudge-cfg-"), "claude")), "write one");
      // The first recording's turn is in flight: claude has asked the API, which holds its answer.
      await vi.waitFor(() => expect(api1.mainLoopRequests().length).toBe(1), { timeout: 60_000, interval: 100 });

      const second = await run(repo, claudeEnv(api2, path.join(tempDir("nudge-cfg-"), "claude")), "write two", [
        "--force",
      ]);
      expect(second.exitCode, second.stderr).toBe(0);
      const s1 =
        /! session (\w+) is also being recorded in this work tree \(pid \d+\): a turn of either may capture the other's changes; such turns are marked "shared work tree", and a rewind keeps their files unless --include-shared/.exec(
          second.stderr,
        )?.[1];
      expect(s1, second.stderr).toBeDefined();
      const s2 = /session (\w+): 1 turn/.exec(second.stderr)![1]!;
      expect(second.stderr).toContain(
        `turn 1 ran while session ${s1} also recorded in this work tree: its changes may include theirs`,
      );

      release();
      const done = await first;
      expect(done.exitCode, done.stderr).toBe(0);
      expect(done.stderr).toContain(
        `turn 1 ran while session ${s2} also recorded in this work tree: its changes may include theirs (the turn is marked "shared work tree")`,
      );

      // The journal says so for both.
      const m1 = readManifestFile(path.join(repo, ".git", "nudge", "sessions", s1!));
      const m2 = readManifestFile(path.join(repo, ".git", "nudge", "sessions", s2));
      expect(m1.turns[1]!.sharedWith).toEqual([s2]);
      expect(m2.turns[1]!.sharedWith).toEqual([s1]);
      expect(m1.turns[0]!.sharedWith).toBeUndefined();

      const show = await runNudge(["session", "show", s1!], { cwd: repo });
      expect(show.stdout).toMatch(
        new RegExp(`^1 +write one +2 files \\+2 -0 \\(shared work tree: may include ${s2}'s\\)`, "m"),
      );
      const diff = await runNudge(["session", "diff", s1!, "1", "--stat"], { cwd: repo });
      expect(diff.stderr).toContain(
        `! shared work tree: session ${s2} also recorded here during turn 1; these changes may include its own`,
      );
      const json = await runNudge(["session", "diff", s1!, "1", "--json"], { cwd: repo });
      expect(JSON.parse(json.stdout).sharedWith).toEqual([s2]);

      // A rewind of the first to before its turn does not delete the second's file as its own.
      const plan = await runNudge(["session", "rewind", s1!, "0", "--dry-run"], { cwd: repo });
      expect(plan.exitCode, plan.stderr).toBe(0);
      expect(plan.stdout).not.toMatch(/^ {2}delete +two\.txt$/m);
      expect(plan.stdout).toContain(
        `  changed while session ${s2} also recorded here (turn 1), so perhaps not by this session: kept as they are (nudge session rewind --include-shared rewinds them too):`,
      );
      expect(plan.stdout).toMatch(/^ {4}keep +two\.txt$/m);
      const rewound = await runNudge(["session", "rewind", s1!, "0", "--yes"], { cwd: repo });
      expect(rewound.exitCode, rewound.stderr).toBe(0);
      expect(existsSync(path.join(repo, "two.txt"))).toBe(true);

      // Undone, then with --include-shared: the shared turn's files go too, as the plan says.
      expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).exitCode).toBe(0);
      const all = await runNudge(["session", "rewind", s1!, "0", "--include-shared", "--dry-run"], { cwd: repo });
      expect(all.stdout).toMatch(/^ {2}delete +two\.txt$/m);
      expect(all.stdout).not.toContain("kept as they are");
    } finally {
      release();
      await Promise.all([api1.close(), api2.close()]);
    }
  }, 120_000);
});
