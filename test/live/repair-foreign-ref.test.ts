/**
 * QA of issue 23.6: `session repair` on an emptied journal whose snapshot ref was moved onto a
 * commit that is not one of the session's snapshots. A ref on the base commit (or behind it)
 * walks to no snapshot at all, and repair crashed (`nudge bug: Cannot read properties of
 * undefined`, exit 2). It is refused with one line and a hint, exit 1, as any chain nudge did
 * not write, and nothing is changed.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { git } from "../support/gitdir.js";
import type { Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { recordThreeTurns } from "../support/three-turns.js";

let r: (Recorded & { repo: string }) | undefined;
afterAll(() => r?.api.close());

describe("repair of a session whose snapshot ref points at a foreign commit", () => {
  it("is refused with one line and a hint when the ref holds no snapshot at all", async () => {
    r = await recordThreeTurns();
    const ref = `refs/nudge/sessions/${r.id}`;
    const base = r.manifest.repo.baseCommit!;
    writeFileSync(path.join(r.dir, "turns.jsonl"), "");
    await git(r.repo, "update-ref", ref, base);
    const header = readFileSync(path.join(r.dir, "manifest.json"));

    for (const args of [["--dry-run"], ["--yes"], ["--json", "--dry-run"]]) {
      const run = await runNudge(["session", "repair", r.id, ...args], { cwd: r.repo });
      expect(run.stderr).not.toContain("nudge bug");
      expect(run.exitCode, run.stderr).toBe(1);
      expect(run.stderr).toContain(
        `error: ${ref} points at ${base.slice(0, 10)}, which holds no snapshot of session ${r.id}`,
      );
      expect(run.stderr).toContain("hint: the snapshot chain is not one nudge wrote; nothing was changed");
    }
    expect(readFileSync(path.join(r.dir, "turns.jsonl"), "utf8")).toBe("");
    expect(readFileSync(path.join(r.dir, "manifest.json"))).toEqual(header);
    expect(await git(r.repo, "rev-parse", ref)).toBe(base);
  }, 120_000);
});
