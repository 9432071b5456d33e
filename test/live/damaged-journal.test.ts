/**
 * Issue 23.6: a deleted or emptied turns.jsonl never rewrites history. `claude run -r` used to
 * start again at turn 1, overwrite changes/turn-001.patch and repoint refs/nudge/sessions/<id>,
 * leaving the old snapshots to the next git gc. Now it is refused like any damaged journal, with
 * the file, and nothing changes. Real claude, scripted API.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { git, gitdir } from "../support/gitdir.js";
import { recordSession, runClaude, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let rec: Recorded | undefined;
afterEach(async () => {
  await rec?.api.close();
  rec = undefined;
});

describe("a damaged turn journal", () => {
  it.each([
    ["deleted", (file: string) => rmSync(file), "is missing"],
    ["emptied", (file: string) => writeFileSync(file, ""), "is empty"],
  ])(
    "%s: run -r and show refuse with the file and a hint; no patch, ref or journal is rewritten",
    async (_name, damage, state) => {
      const repo = await gitdir();
      rec = await recordSession(
        repo,
        [{ tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "one\n" } }, { text: "Wrote a.txt." }],
        ["write a"],
      );
      const journal = path.join(rec.dir, "turns.jsonl");
      const patch = path.join(rec.dir, "changes", "turn-001.patch");
      const before = { patch: readFileSync(patch), ref: await git(repo, "rev-parse", `refs/nudge/sessions/${rec.id}`) };
      damage(journal);

      const message = `error: session ${rec.id}'s turn journal ${journal} ${state}, but its manifest counts 1 turn: it was damaged`;
      const resumed = await runClaude(repo, ["-r", rec.id], rec.env, "write b\n");
      expect(resumed.exitCode, resumed.stderr).toBe(1);
      expect(resumed.stderr).toContain(message);
      expect(resumed.stderr).toContain(
        `hint: nothing was changed; rebuild it from the session's snapshots and logs: nudge session repair ${rec.id} (--dry-run shows what it would write)`,
      );
      expect(resumed.stderr).not.toMatch(/\n\s+at /);

      const shown = await runNudge(["session", "show", rec.id], { cwd: repo });
      expect(shown.exitCode).toBe(1);
      expect(shown.stderr).toContain(message);

      expect(readFileSync(patch)).toEqual(before.patch);
      expect(await git(repo, "rev-parse", `refs/nudge/sessions/${rec.id}`)).toBe(before.ref);
      expect(existsSync(journal) ? readFileSync(journal).length : 0).toBe(0); // not written again
    },
    90_000,
  );

  it("a line that is not JSON: the refusal says how to rebuild the journal, and doing as it says works", async () => {
    const repo = await gitdir();
    rec = await recordSession(
      repo,
      [{ tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "one\n" } }, { text: "Wrote a.txt." }],
      ["write a"],
    );
    const journal = path.join(rec.dir, "turns.jsonl");
    const lines = readFileSync(journal, "utf8").split("\n");
    writeFileSync(journal, ["xx", ...lines.slice(1)].join("\n"));

    const shown = await runNudge(["session", "show", rec.id], { cwd: repo });
    expect(shown.exitCode).toBe(1);
    expect(shown.stderr).toContain(`error: ${journal} line 1 is damaged (not JSON)`);
    const hint = /^hint: .*: (mv .*) && nudge session repair (\S+)$/m.exec(shown.stderr);
    expect(hint?.[2], shown.stderr).toBe(rec.id);

    await execa("sh", ["-c", hint![1]!], { cwd: repo });
    const repaired = await runNudge(["session", "repair", rec.id, "--yes"], { cwd: repo });
    expect(repaired.exitCode, repaired.stderr).toBe(0);
    const again = await runNudge(["session", "show", rec.id], { cwd: repo });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain("write a");
  }, 90_000);
});
