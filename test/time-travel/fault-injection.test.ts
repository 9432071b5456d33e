/**
 * Crash safety of time travel: a rewind or an undo killed halfway (NUDGE_FAULT) is found by the
 * next command, which refuses to work over it, and is finished (--continue) or rolled back
 * (--abort) exactly; two rewinds at once never interleave; two `run -r` of a rewound session at
 * once make one fork. After each, the user's files equal the plan's target or the backup.
 */
import { execa } from "execa";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { readManifestFile, type Recorded } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { recordThreeTurns } from "../support/three-turns.js";
import { treeListing, workTreeListing } from "../support/tree-listing.js";
import { tempDir } from "../support/gitdir.js";
import { until } from "../support/until.js";

let recorded: (Recorded & { repo: string }) | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

function rewind(repo: string, args: string[], env: Record<string, string> = {}) {
  return execa("node", [NUDGE_CLI, "session", "rewind", ...args], {
    cwd: repo,
    env: { NO_COLOR: "1", ...env },
    reject: false,
    detached: true,
  });
}

const records = (repo: string) =>
  readdirSync(path.join(repo, ".git", "nudge", "rewinds"))
    .filter((n) => n.endsWith(".json"))
    .sort()
    .map((n) => JSON.parse(readFileSync(path.join(repo, ".git", "nudge", "rewinds", n), "utf8")));

describe("a rewind killed halfway", () => {
  it.each([
    ["rewind-after-record:kill", "the journal written, no file touched yet"],
    ["switch-after-write:kill", "the files written, not yet checked"],
    ["rewind-after-switch:kill", "the files done, the conversation's fork point not yet"],
  ])("%s (%s): found, refused over, then finished with --continue", async (fault) => {
    recorded = await recordThreeTurns();
    const { repo, id } = recorded;
    writeFileSync(path.join(repo, "mine.txt"), "the user's own file\n");
    const before = await workTreeListing(repo);
    const killed = await rewind(repo, [id, "1", "--yes"], { NUDGE_FAULT: fault });
    expect(killed.signal).toBe("SIGKILL");

    // Nothing may work over it: not a recording, not another rewind, not an undo.
    for (const run of [
      await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-c", "go on"], { cwd: repo, env: recorded.env }),
      await runNudge(["session", "rewind", id, "2", "--yes"], { cwd: repo }),
      await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo }),
    ]) {
      expect(run.exitCode, run.stderr).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(`^error: a rewind of session ${id} to turn 1 was interrupted halfway`, "m"),
      );
      expect(run.stderr).toMatch(
        /^hint: finish it: nudge session rewind --continue, or put everything back as it was: nudge session rewind --abort/m,
      );
    }

    // The list of backups says so too, not "nothing to undo".
    expect((await runNudge(["session", "backups"], { cwd: repo })).stdout).toMatch(
      /^one was interrupted halfway \(.+\): nudge session rewind --continue finishes it, --abort puts everything back$/m,
    );

    const dry = await runNudge(["session", "rewind", "--continue", "--dry-run"], { cwd: repo });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^finish the rewind of session ${id} to turn 1 \\(interrupted`, "m"));
    const finish = await runNudge(["session", "rewind", "--continue", "--yes"], { cwd: repo });
    expect(finish.exitCode, finish.stderr).toBe(0);
    const target = readManifestFile(recorded.dir).turns[1]!.snapshot.tree;
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, target));
    expect(readManifestFile(recorded.dir).rewoundTo).toBe(1);

    // The backup holds the state from before, the user's file included: --undo brings it all back.
    const undo = await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo });
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(await workTreeListing(repo)).toEqual(before);
  });

  it.each([
    ["rewind", "a rewind of session {id} to turn 1"],
    ["fork", "a fork of session {id} at turn 1"],
  ])(
    "a %s stopped by a second Ctrl-C while its files are written says what it cut off; --continue finishes it",
    async (command, what) => {
      recorded = await recordThreeTurns();
      const { repo, id } = recorded;
      const target = readManifestFile(recorded.dir).turns[1]!.snapshot.tree;
      // Held once its files are written, until this test is done with it (the file is never made).
      const held = execa("node", [NUDGE_CLI, "session", command, id, "1", "--yes"], {
        cwd: repo,
        env: { NO_COLOR: "1", NUDGE_FAULT: "switch-after-write:hold", NUDGE_FAULT_RELEASE: path.join(repo, "never") },
        reject: false,
      });
      await until("the files written", async () =>
        readFileSync(path.join(repo, "notes.txt"), "utf8") === "alpha\nbeta\ngamma\n" ? true : undefined,
      );
      // The first asks it to stop: it says it finishes first; the second stops it there.
      let said = "";
      held.stderr!.on("data", (chunk: Buffer) => (said += chunk.toString()));
      held.kill("SIGINT");
      await until("the first Ctrl-C answered", async () => (said.includes("finishing first") ? true : undefined));
      held.kill("SIGINT");
      const stopped = await held;
      expect(stopped.exitCode, stopped.stderr).toBe(130);
      const lines = stopped.stderr.trim().split("\n");
      expect(lines.slice(-2)).toEqual([
        `error: ${what.replace("{id}", id)} was interrupted halfway; some files are as before it, some as after (Ctrl-C)`,
        "hint: finish it: nudge session rewind --continue, or put everything back as it was: nudge session rewind --abort (both show their plan with --dry-run)",
      ]);
      expect(records(repo).map((r) => r.status)).toEqual(["started"]);
      const finish = await runNudge(["session", "rewind", "--continue", "--yes"], { cwd: repo });
      expect(finish.exitCode, finish.stderr).toBe(0);
      expect(await workTreeListing(repo)).toEqual(await treeListing(repo, target));
    },
  );

  it("a terminal's Ctrl-C while git writes the files: the rewind finishes them, and no file is left cut short", async () => {
    recorded = await recordThreeTurns();
    const { repo, id } = recorded;
    const target = readManifestFile(recorded.dir).turns[1]!.snapshot.tree;
    // A git that takes its time to write the files (as on a slow disk), so that the terminal's
    // Ctrl-C comes while it is at it: it marks the moment, then writes. The terminal signals the
    // whole foreground process group, as this test does.
    const slow = tempDir("nudge-slow-git-");
    const mark = path.join(slow, "writing");
    const real = (await execa("sh", ["-c", "command -v git"])).stdout.trim();
    writeFileSync(
      path.join(slow, "git"),
      `#!/bin/sh\ncase "$*" in *checkout-index*|*restore*) touch "${mark}"; sleep 1;; esac\nexec "${real}" "$@"\n`,
      { mode: 0o755 },
    );
    const run = execa("node", [NUDGE_CLI, "session", "rewind", id, "1", "--yes"], {
      cwd: repo,
      env: { NO_COLOR: "1", PATH: `${slow}:${process.env.PATH}` },
      reject: false,
      detached: true,
    });
    await until("git writing the files", async () => (existsSync(mark) ? true : undefined));
    process.kill(-run.pid!, "SIGINT");
    const done = await run;
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).toContain("Ctrl-C: files are being changed; finishing first");
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, target));
    expect(records(repo).map((r) => r.status)).toEqual(["applied"]);
  });

  it.each([
    ["switch-after-write:kill", "while its files are written"],
    ["fork-building:kill", "once its files are done, while its session is put in place"],
  ])("a fork in place killed at %s (%s): --continue finishes the files and makes the fork", async (fault) => {
    recorded = await recordThreeTurns();
    const { repo, id } = recorded;
    const before = await workTreeListing(repo);
    const killed = await execa("node", [NUDGE_CLI, "session", "fork", id, "1", "--yes"], {
      cwd: repo,
      env: { NO_COLOR: "1", NUDGE_FAULT: fault },
      reject: false,
      detached: true,
    });
    expect(killed.signal).toBe("SIGKILL");
    const refused = await runNudge(["session", "rewind", id, "2", "--yes"], { cwd: repo });
    expect(refused.stderr).toMatch(
      new RegExp(`^error: a fork of session ${id} at turn 1 was interrupted halfway`, "m"),
    );

    const dry = await runNudge(["session", "rewind", "--continue", "--dry-run"], { cwd: repo });
    expect(dry.stdout).toMatch(new RegExp(`^finish the fork of session ${id} at turn 1 \\(interrupted`, "m"));
    expect(dry.stdout).toContain(`  fork: a new session forked from turn 1 of ${id} is made`);
    const finish = await runNudge(["session", "rewind", "--continue", "--yes"], { cwd: repo });
    expect(finish.exitCode, finish.stderr).toBe(0);
    const forkId = new RegExp(`^forked ${id} at turn 1 → (\\w+) `, "m").exec(finish.stdout)?.[1];
    expect(forkId, finish.stdout).toBeDefined();
    // The fork is the session a fork makes: its turns up to 1, its parent the session forked.
    const fork = readManifestFile(path.join(repo, ".git", "nudge", "sessions", forkId!));
    expect(fork.parent).toEqual({ id, turn: 1 });
    expect(fork.turns.map((t) => t.n)).toEqual([0, 1]);
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, fork.turns[1]!.snapshot.tree));
    // Before: finished as a plain rewind, no fork made, and --undo called it one.
    const undo = await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo });
    expect(undo.stdout).toContain(`undid the fork of ${id} at turn 1`);
    expect(await workTreeListing(repo)).toEqual(before);
  });

  it("a cut-off fork whose session cannot be made any more: the files finished, the way to fork said, nothing left half done", async () => {
    recorded = await recordThreeTurns();
    const { repo, id } = recorded;
    const killed = await execa("node", [NUDGE_CLI, "session", "fork", id, "1", "--yes"], {
      cwd: repo,
      env: { NO_COLOR: "1", NUDGE_FAULT: "rewind-after-record:kill" },
      reject: false,
      detached: true,
    });
    expect(killed.signal).toBe("SIGKILL");
    // The session forked is gone meanwhile (removed by hand): its fork cannot be made.
    const target = readManifestFile(recorded.dir).turns[1]!.snapshot.tree;
    rmSync(recorded.dir, { recursive: true });
    const finish = await runNudge(["session", "rewind", "--continue", "--yes"], { cwd: repo });
    expect(finish.exitCode).toBe(1);
    expect(finish.stderr).toMatch(
      new RegExp(
        `^error: the files are at turn 1 of ${id}, but its fork could not be made: that session was removed$`,
        "m",
      ),
    );
    expect(finish.stderr).toContain("hint: put the files back with: nudge session rewind --undo");
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, target));
    // Listed as the fork it was, with none made (it said "rewind (code)").
    expect((await runNudge(["session", "backups"], { cwd: repo })).stdout).toMatch(/ fork \(none made\) +applied /);
    // Settled: nothing is left interrupted.
    expect((await runNudge(["session", "rewind", "--continue"], { cwd: repo })).stderr).toMatch(
      /^error: there is no interrupted rewind, fork or undo/m,
    );
  });

  it("rolled back with --abort: the files exactly as before it, the session as before", async () => {
    recorded = await recordThreeTurns();
    const { repo, id } = recorded;
    writeFileSync(path.join(repo, "mine.txt"), "the user's own file\n");
    const before = await workTreeListing(repo);
    expect((await rewind(repo, [id, "0", "--yes"], { NUDGE_FAULT: "switch-after-write:kill" })).signal).toBe("SIGKILL");
    expect(await workTreeListing(repo)).not.toEqual(before); // half way: the files were written
    const abort = await runNudge(["session", "rewind", "--abort", "--yes"], { cwd: repo });
    expect(abort.exitCode, abort.stderr).toBe(0);
    expect(await workTreeListing(repo)).toEqual(before);
    expect(readManifestFile(recorded.dir).rewoundTo).toBeNull();
    expect(records(repo).map((r) => r.status)).toEqual(["rolled-back"]);
    // Nothing is left to undo or to finish.
    expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).stderr).toMatch(
      /^error: there is no rewind to undo/m,
    );
    expect((await runNudge(["session", "rewind", "--continue"], { cwd: repo })).stderr).toMatch(
      /^error: there is no interrupted rewind, fork or undo/m,
    );
  });

  it("never overwrites a file changed since the interruption", async () => {
    recorded = await recordThreeTurns();
    const { repo, id } = recorded;
    expect((await rewind(repo, [id, "1", "--yes"], { NUDGE_FAULT: "rewind-after-record:kill" })).signal).toBe(
      "SIGKILL",
    );
    writeFileSync(path.join(repo, "notes.txt"), "edited after the crash\n"); // a file the rewind meant to write
    // Foreseen by --dry-run (it showed a plan the run then refused), for --continue and --abort alike.
    for (const how of ["--continue", "--abort"]) {
      const dry = await runNudge(["session", "rewind", how, "--dry-run"], { cwd: repo });
      expect(dry.exitCode).toBe(1);
      expect(dry.stderr).toMatch(
        /^error: files were changed since the interrupted rewind: notes\.txt; nothing was changed/m,
      );
      expect(dry.stdout).toBe("");
    }
    const finish = await runNudge(["session", "rewind", "--continue", "--yes"], { cwd: repo });
    expect(finish.exitCode).toBe(1);
    expect(finish.stderr).toMatch(
      /^error: files were changed since the interrupted rewind: notes\.txt; nothing was changed/m,
    );
    expect(readFileSync(path.join(repo, "notes.txt"), "utf8")).toBe("edited after the crash\n");
  });

  it("a write failing (a full disk) before the files change is a failed rewind; after, one --continue finishes", async () => {
    recorded = await recordThreeTurns();
    const { repo, id } = recorded;
    const before = await workTreeListing(repo);
    const early = await runNudge(["session", "rewind", id, "1", "--yes"], {
      cwd: repo,
      env: { NUDGE_FAULT: "rewind-after-record:enospc" },
    });
    expect(early.exitCode).toBe(1);
    expect(await workTreeListing(repo)).toEqual(before);
    // Before: left "started", and the next command refused it as "interrupted halfway".
    expect(records(repo).map((r) => r.status)).toEqual(["failed"]);

    const late = await runNudge(["session", "rewind", id, "1", "--yes"], {
      cwd: repo,
      env: { NUDGE_FAULT: "rewind-after-switch:enospc" },
    });
    expect(late.exitCode).toBe(1);
    // Before: "free some disk space, then run the command again", which then refused.
    expect(late.stderr).toBe(
      "error: the files are at turn 1, but the rewind could not be finished: the disk is full\n" +
        "hint: free some disk space, then finish this rewind with: nudge session rewind --continue (or put everything back as it was: nudge session rewind --abort)",
    );
    const finish = await runNudge(["session", "rewind", "--continue", "--yes"], { cwd: repo });
    expect(finish.exitCode, finish.stderr).toBe(0);
    expect(readManifestFile(recorded.dir).rewoundTo).toBe(1);
  });

  it("an undo that fails and puts the files back is recorded failed, not left interrupted", async () => {
    recorded = await recordThreeTurns();
    const { repo, id } = recorded;
    expect((await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo })).exitCode).toBe(0);
    const rewound = await workTreeListing(repo);
    const failed = await runNudge(["session", "rewind", "--undo", "--yes"], {
      cwd: repo,
      env: { NUDGE_FAULT: "switch-before-write:enospc" },
    });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toMatch(/the files it touched were put back/);
    expect(await workTreeListing(repo)).toEqual(rewound);
    // Before: its record stayed "started", and every command refused "an undo … was interrupted halfway".
    expect(records(repo).map((r) => [r.kind, r.status])).toEqual([
      ["rewind", "applied"],
      ["undo", "failed"],
    ]);
    const again = await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo });
    expect(again.exitCode, again.stderr).toBe(0);
  });

  it.each([
    ["rewind", "to"],
    ["fork", "at"],
  ])("an undo of a %s killed halfway is finished like a rewind, and named for what it undoes", async (what, prep) => {
    recorded = await recordThreeTurns();
    const { repo, id } = recorded;
    const before = await workTreeListing(repo);
    expect((await runNudge(["session", what, id, "1", "--yes"], { cwd: repo })).exitCode).toBe(0);
    expect((await rewind(repo, ["--undo", "--yes"], { NUDGE_FAULT: "undo-after-record:kill" })).signal).toBe("SIGKILL");
    const run = await runNudge(["session", "rewind", id, "2", "--yes"], { cwd: repo });
    expect(run.stderr).toMatch(
      new RegExp(`^error: an undo of the ${what} of session ${id} was interrupted halfway`, "m"),
    );
    const finished = await runNudge(["session", "rewind", "--continue", "--yes"], { cwd: repo });
    expect(finished.exitCode, finished.stderr).toBe(0);
    // It said "the work tree is at turn 1", the very state the undo left.
    expect(finished.stdout).toContain(`finished: the files are as they were before the ${what} of ${id} ${prep} turn `);
    expect(await workTreeListing(repo)).toEqual(before);
    expect(records(repo).map((r) => [r.kind, r.status])).toEqual([
      ["rewind", "undone"],
      ["undo", "applied"],
    ]);
  });
});

describe("two at once", () => {
  it("two rewinds never interleave: one waits, and two undos put everything back", async () => {
    recorded = await recordThreeTurns();
    const { repo, id } = recorded;
    writeFileSync(path.join(repo, "mine.txt"), "the user's own file\n");
    const before = await workTreeListing(repo);
    const [a, b] = await Promise.all([rewind(repo, [id, "1", "--yes"]), rewind(repo, [id, "2", "--yes"])]);
    expect([a.exitCode, b.exitCode], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    const turns = readManifestFile(recorded.dir).turns;
    const listing = await workTreeListing(repo);
    const one = await treeListing(repo, turns[1]!.snapshot.tree);
    const two = await treeListing(repo, turns[2]!.snapshot.tree);
    expect([one, two]).toContainEqual(listing);
    expect(records(repo).map((r) => r.status)).toEqual(["applied", "applied"]);
    for (let i = 0; i < 2; i++)
      expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).exitCode).toBe(0);
    expect(await workTreeListing(repo)).toEqual(before);
  });

  it("two `run -r` of a rewound session make one fork; the other is refused and changes nothing", async () => {
    recorded = await recordThreeTurns();
    const { repo, id } = recorded;
    expect((await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo })).exitCode).toBe(0);
    recorded.api.push({ delayMs: 1500, then: { text: "in the fork" } }, { text: "in the fork again" });
    const start = () =>
      execa("node", [NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "-r", id, "go on"], {
        cwd: repo,
        env: { NO_COLOR: "1", ...recorded!.env },
        input: "",
        reject: false,
      });
    const [a, b] = await Promise.all([start(), start()]);
    expect([a.exitCode, b.exitCode].sort(), `${a.stderr}\n${b.stderr}`).toEqual([0, 1]);
    expect([a, b].find((r) => r.exitCode === 1)!.stderr).toMatch(/is being recorded by another nudge process/);
    const sessions = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    expect(sessions.filter((s: { parent: { id: string } | null }) => s.parent?.id === id)).toHaveLength(1);
  });
});
