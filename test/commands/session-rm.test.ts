/**
 * `nudge session rm` on a real recording (real claude binary, scripted API): what the plan
 * shows, what it refuses (one line, a hint, exit 1, nothing changed), and that a fork made from
 * the removed session keeps working, even once git gc has pruned everything unreferenced.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { inTerminal } from "../support/pty.js";
import { nudgeRefs, storeState } from "../support/store-state.js";
import { recordThreeTurnsForFile } from "../support/three-turns.js";
import { workTreeListing } from "../support/tree-listing.js";

let repo: string;
let id: string;
let dir: string;

recordThreeTurnsForFile((recorded) => ({ repo, id, dir } = recorded));

function expectRefusal(run: { exitCode?: number; stderr: string }, message: RegExp): void {
  expect(run.exitCode, run.stderr).toBe(1);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).toMatch(/^hint: .+$/m);
  expect(run.stderr.trim().split("\n")).toHaveLength(2);
}

/** A pid no process has now. */
function deadPid(): number {
  return spawnSync("true").pid!;
}

describe("nudge session rm", () => {
  it("--dry-run shows the plan and changes nothing; a live session, no terminal, a bad id are refused", async () => {
    const before = { store: await storeState(repo), files: await workTreeListing(repo) };

    const dry = await runNudge(["session", "rm", id.slice(0, 5), "--dry-run"], { cwd: repo });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^remove session ${id} · 3 turns · last used .+ · "write notes"$`, "m"));
    expect(dry.stdout).toMatch(new RegExp(`^ {2}bundle {2}${dir} \\(\\d+\\.\\d KiB\\)$`, "m"));
    expect(dry.stdout).toContain(`  ref     refs/nudge/sessions/${id}\n`);
    expect(dry.stdout).toMatch(/^dry run: nothing was changed$/m);
    const json = JSON.parse((await runNudge(["session", "rm", id, "--dry-run", "--json"], { cwd: repo })).stdout);
    expect(json).toMatchObject({
      dryRun: true,
      plan: { sessions: [{ id, dir, turns: 3, refs: [{ ref: `refs/nudge/sessions/${id}` }] }] },
    });

    const noTerminal = await runNudge(["session", "rm", id], { cwd: repo });
    expectRefusal(noTerminal, /^error: not confirmed: there is no terminal to ask$/m);
    expect(noTerminal.stdout).toContain(`remove session ${id}`);

    expectRefusal(
      await runNudge(["session", "rm", "zzzzzzzz"], { cwd: repo }),
      /^error: no session matches "zzzzzzzz"$/m,
    );
    // What was typed is quoted shown, not obeyed: an ESC colours nothing, a line break splits no line.
    const typed = await runNudge(["session", "rm", "\u001b[31mred\nsecond"], { cwd: repo });
    expectRefusal(typed, /^error: no session matches "\\x1b\[31mred\\nsecond"$/m);
    expect(typed.stderr).not.toContain("\u001b");

    // Recorded right now by a live nudge (this test process stands in for it).
    const manifest = readFileSync(path.join(dir, "manifest.json"), "utf8");
    writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ ...JSON.parse(manifest), state: "recording" }));
    const lock = path.join(dir, "lock");
    writeFileSync(
      lock,
      JSON.stringify({ host: os.hostname(), owner: { pid: process.pid, started: null }, claude: null }),
    );
    try {
      const live = await runNudge(["session", "rm", id, "--yes"], { cwd: repo });
      expectRefusal(
        live,
        new RegExp(
          `^error: session ${id} is being recorded right now \\(nudge pid ${process.pid}\\); it cannot be removed while it records$`,
          "m",
        ),
      );
      expect(live.stderr).toMatch(/^hint: quit that session first/m);
      // Its nudge died, its claude did not (this test process stands in for the claude).
      writeFileSync(
        lock,
        JSON.stringify({
          host: os.hostname(),
          owner: { pid: deadPid(), started: null },
          claude: { pid: process.pid, started: null },
        }),
      );
      const orphan = await runNudge(["session", "rm", id, "--yes"], { cwd: repo });
      expectRefusal(
        orphan,
        new RegExp(`^error: the claude of crashed session ${id} is still running \\(pid ${process.pid}\\)`, "m"),
      );
      expect(orphan.stderr).toContain(
        `hint: stop it (kill ${process.pid}), or recover the session first (nudge claude run -r ${id})`,
      );
      // Finished, but another nudge works on it (an export, another rm): the plan refuses as the removal would (QA: it planned, then refused, forever).
      writeFileSync(path.join(dir, "manifest.json"), manifest);
      writeFileSync(
        lock,
        JSON.stringify({
          host: os.hostname(),
          owner: { pid: process.pid, started: null },
          claude: null,
          what: `exporting session ${id}`,
        }),
      );
      for (const args of [["--dry-run"], ["--yes"]]) {
        expectRefusal(
          await runNudge(["session", "rm", id, ...args], { cwd: repo }),
          new RegExp(
            `^error: session ${id} cannot be removed now: another nudge process holds it \\(pid ${process.pid}: exporting session ${id}\\)$`,
            "m",
          ),
        );
      }
      const gc = await runNudge(["session", "gc", "--older-than", "0h", "--dry-run"], { cwd: repo });
      expect(gc.exitCode, gc.stderr).toBe(0);
      expect(gc.stdout).not.toMatch(new RegExp(`^remove session ${id}`, "m"));
      expect(gc.stdout).toContain(
        `keep session ${id}: another nudge process holds it (pid ${process.pid}: exporting session ${id})`,
      );
    } finally {
      rmSync(lock, { force: true });
      writeFileSync(path.join(dir, "manifest.json"), manifest);
    }
    expect({ store: await storeState(repo), files: await workTreeListing(repo) }).toEqual(before);
  });

  it("on a terminal it asks: no keeps everything, yes removes", async () => {
    const fork = await runNudge(["session", "fork", id, "1", "--worktree", path.join(tempDir(), "wt"), "--json"], {
      cwd: repo,
    });
    const forkId = JSON.parse(fork.stdout).id as string;
    const before = await storeState(repo);
    const no = inTerminal(repo, ["session", "rm", forkId]);
    await no.waitFor(`remove session ${forkId}? [y/N] `);
    no.type("n\r");
    expect((await no.child).exitCode, no.screen()).toBe(1);
    expect(no.screen()).toContain("error: cancelled; nothing was changed");
    expect(await storeState(repo)).toEqual(before);

    const yes = inTerminal(repo, ["session", "rm", forkId]);
    await yes.waitFor("[y/N] ");
    yes.type("y\r");
    expect((await yes.child).exitCode, yes.screen()).toBe(0);
    expect(yes.screen()).toContain("removed 1 session, 1 ref");
    expect(existsSync(path.join(repo, ".git", "nudge", "sessions", forkId))).toBe(false);
  });

  it("removes a session with its refs, index and rewind records; its fork still shows, diffs and rewinds after git gc --prune=now", async () => {
    const scratch = tempDir();
    const fork = await runNudge(["session", "fork", id, "2", "--worktree", path.join(scratch, "wt")], { cwd: repo });
    expect(fork.exitCode, fork.stderr).toBe(0);
    const forkId = /→ (\w+)/.exec(fork.stdout)![1]!;
    const wt = path.join(scratch, "wt");

    // A rewind that was undone (its record and backup go with the session), then a code-only rewind
    // that `--undo` restores: that one stays, so the undo still works after the session is gone.
    for (const args of [
      ["rewind", id, "1", "--yes"],
      ["rewind", "--undo", "--yes"],
      ["rewind", id, "2", "--code-only", "--yes"],
    ]) {
      const run = await runNudge(["session", ...args], { cwd: repo });
      expect(run.exitCode, run.stderr).toBe(0);
    }
    const rewinds = path.join(repo, ".git", "nudge", "rewinds");
    const records = readdirSync(rewinds)
      .filter((n) => n.endsWith(".json"))
      .sort();
    const journal = records.map((n) => JSON.parse(readFileSync(path.join(rewinds, n), "utf8")));
    expect(journal.map((r) => r.kind)).toEqual(["rewind", "undo", "rewind"]);
    const [undone, applied] = journal.filter((r) => r.kind === "rewind");
    expect([undone.status, applied.status]).toEqual(["undone", "applied"]);

    // As a bundle made before the rework had them: one ref per turn. And a private index left by a crash.
    const turns = readManifestFile(dir).turns;
    for (const t of turns) await git(repo, "update-ref", `refs/nudge/${id}/${t.n}`, t.snapshot.commit);
    const index = path.join(repo, ".git", "nudge", "index", id);
    copyFileSync(path.join(repo, ".git", "index"), index);

    const rm = await runNudge(["session", "rm", id, "--yes"], { cwd: repo });
    expect(rm.exitCode, rm.stderr).toBe(0);
    expect(rm.stdout).toContain(
      `forks made from it keep working, each has its own ref to the snapshots they share: ${forkId} (at turn 2)`,
    );
    expect(rm.stdout).toContain(`remove rewind record ${undone.stamp} · session ${id} to turn 1 · undone`);
    expect(rm.stdout).toMatch(
      new RegExp(
        `^keep rewind record ${applied.stamp} and ${applied.backup.ref}: \`nudge session rewind --undo\` restores it`,
        "m",
      ),
    );
    expect(rm.stdout).toMatch(/^removed 1 session, 2 records, 7 refs$/m);
    expect(rm.stdout).toMatch(/^to reclaim the disk the snapshots used: git gc/m);

    expect(existsSync(dir)).toBe(false);
    expect(existsSync(index)).toBe(false);
    const refs = await nudgeRefs(repo);
    expect(refs.filter((r) => r.includes(id))).toEqual([]);
    expect(refs.some((r) => r.startsWith(`${undone.backup.ref} `))).toBe(false);
    expect(refs.some((r) => r.startsWith(`${applied.backup.ref} `))).toBe(true);
    expect(readdirSync(rewinds).filter((n) => n.endsWith(".json"))).toEqual([`${applied.stamp}.json`]);
    expect(readdirSync(path.join(repo, ".git", "nudge", "sessions"))).toEqual([forkId]);

    await git(repo, "reflog", "expire", "--expire=now", "--all");
    await git(repo, "gc", "-q", "--prune=now");

    // --undo still puts back what the code-only rewind replaced: the files of turn 3.
    const undo = await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo });
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(existsSync(path.join(repo, "blob.bin"))).toBe(true);
    expect(readFileSync(path.join(repo, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");

    const list = await runNudge(["session", "list"], { cwd: repo });
    expect(list.stdout).toMatch(new RegExp(`^${forkId} .* ${id}@2$`, "m"));
    const show = await runNudge(["session", "show", forkId], { cwd: repo });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^2 +edit notes /m);
    const diff = await runNudge(["session", "diff", forkId, "2"], { cwd: repo });
    expect(diff.exitCode, diff.stderr).toBe(0);
    expect(diff.stdout).toContain("+BETA");
    const rewind = await runNudge(["session", "rewind", forkId, "1", "--yes"], { cwd: wt });
    expect(rewind.exitCode, rewind.stderr).toBe(0);
    expect(readFileSync(path.join(wt, "notes.txt"), "utf8")).toBe("alpha\nbeta\ngamma\n");
    for (const t of turns.slice(0, 3)) expect(await git(repo, "cat-file", "-t", t.snapshot.tree)).toBe("tree");
  });
});
