/**
 * Time travel end to end, with the real claude binary: rewind code and conversation to turn 1,
 * undo it, resume the rewound conversation, fork into a worktree — and nothing is ever lost.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";
import { readManifestFile, recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import type { ScriptStep } from "../support/scripted-api.js";
import { treeListing, workTreeListing } from "../support/tree-listing.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

const BASE = {
  ".gitignore": "*.log\n",
  "keep.txt": "one\ntwo\n",
  "old-name.txt": "rename me\n",
  "doomed.txt": "delete me\n",
  "script.sh": "#!/bin/sh\necho hi\n",
};

/** Three turns that create, modify, delete, rename, chmod, and write a binary file and a symlink. */
function threeTurns(repo: string): ScriptStep[] {
  return [
    { tool: "Write", input: { file_path: path.join(repo, "src/app.ts"), content: "export const v = 1;\n" } },
    { text: "TURN-ONE-REPLY: created src/app.ts" },
    { tool: "Read", input: { file_path: path.join(repo, "keep.txt") } },
    { tool: "Edit", input: { file_path: path.join(repo, "keep.txt"), old_string: "two", new_string: "TWO" } },
    { text: "TURN-TWO-REPLY: edited keep.txt" },
    {
      tool: "Bash",
      input: {
        command:
          "rm doomed.txt && mv old-name.txt renamed.txt && chmod +x script.sh && printf '\\000\\377' > data.bin && ln -s keep.txt link",
        description: "shuffle",
      },
    },
    { text: "TURN-THREE-REPLY: shuffled" },
  ];
}
const PROMPTS = ["TURN-ONE-PROMPT create app", "TURN-TWO-PROMPT edit keep", "TURN-THREE-PROMPT shuffle"];

describe("rewind, undo, resume and fork", () => {
  it("rewinds code and conversation to turn 1, undoes it, resumes at turn 1, and forks into a worktree", async () => {
    const repo = await gitdir(BASE);
    recorded = await recordSession(repo, threeTurns(repo), PROMPTS);
    const { id, manifest } = recorded;
    expect(manifest.turns).toHaveLength(4);
    const headBefore = await git(repo, "rev-parse", "HEAD");
    const indexBefore = readFileSync(path.join(repo, ".git/index"));

    // A user edit after the session, and an ignored file that must never be touched.
    writeFiles(repo, { "keep.txt": "my own edit\n", "notes.log": "ignored\n" });
    const beforeRewind = await workTreeListing(repo);

    const dry = await runNudge(["session", "rewind", id, "1", "--dry-run"], { cwd: repo });
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(/delete {2}renamed\.txt/);
    expect(dry.stdout).toMatch(/write {3}doomed\.txt/);
    expect(dry.stdout).toContain("changes not in any snapshot");
    expect(await workTreeListing(repo)).toEqual(beforeRewind); // a dry run changes nothing

    const rewind = await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo });
    expect(rewind.exitCode, rewind.stderr).toBe(0);
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, manifest.turns[1]!.snapshot.tree));
    expect(readFileSync(path.join(repo, "notes.log"), "utf8")).toBe("ignored\n");
    expect(await git(repo, "rev-parse", "HEAD")).toBe(headBefore);
    expect(readFileSync(path.join(repo, ".git/index")).equals(indexBefore)).toBe(true);

    // --undo brings back exactly the state from before, the user's edit included.
    const undo = await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo });
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(await workTreeListing(repo)).toEqual(beforeRewind);
    expect(readFileSync(path.join(repo, "keep.txt"), "utf8")).toBe("my own edit\n");
    expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).stderr).toContain(
      "there is no rewind to undo",
    );

    // Rewind again, then resume: claude is sent turn 1 and nothing of turns 2–3.
    expect((await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo })).exitCode).toBe(0);
    recorded.api.push({ text: "continuing from turn one" });
    const requestsBefore = recorded.api.mainLoopRequests().length;
    const resume = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", id, "TURN-FOUR-PROMPT next"], {
      cwd: repo,
      env: recorded.env,
    });
    expect(resume.exitCode, resume.stderr).toBe(0);
    const sent = JSON.stringify(recorded.api.mainLoopRequests()[requestsBefore]!.body.messages);
    expect(sent).toContain("TURN-ONE-PROMPT");
    expect(sent).toContain("TURN-ONE-REPLY");
    expect(sent).toContain("TURN-FOUR-PROMPT");
    expect(sent).not.toContain("TURN-TWO");
    expect(sent).not.toContain("TURN-THREE");

    // The original keeps all its turns; the continuation is an automatic fork of it at turn 1.
    const list = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    expect(list).toHaveLength(2);
    const fork = list.find((s: { id: string }) => s.id !== id);
    expect(fork.parent).toEqual({ id, turn: 1 });
    expect(fork.turns).toBe(2);
    expect(readManifestFile(recorded.dir).turns).toHaveLength(4);
    expect(readManifestFile(recorded.dir).rewoundTo).toBeNull();

    // fork --worktree: turn 2's code side by side; the original session and directory untouched.
    const originalManifest = readFileSync(path.join(recorded.dir, "manifest.json"));
    const originalTree = await workTreeListing(repo);
    const worktree = path.join(tempDir(), "try-b");
    const forked = await runNudge(["session", "fork", id, "2", "--worktree", worktree, "--json"], { cwd: repo });
    expect(forked.exitCode, forked.stderr).toBe(0);
    const forkInfo = JSON.parse(forked.stdout);
    expect(await workTreeListing(worktree)).toEqual(await treeListing(repo, manifest.turns[2]!.snapshot.tree));
    expect(await workTreeListing(repo)).toEqual(originalTree);
    expect(readFileSync(path.join(recorded.dir, "manifest.json")).equals(originalManifest)).toBe(true);
    const show = JSON.parse((await runNudge(["session", "show", forkInfo.id, "--json"], { cwd: repo })).stdout);
    expect(show.parent).toEqual({ id, turn: 2 });
    expect(show.turns.map((t: { n: number }) => t.n)).toEqual([0, 1, 2]);

    // Continuing the worktree fork resumes claude there with turns 1–2 and not turn 3.
    recorded.api.push({ text: "in the worktree" });
    const n = recorded.api.mainLoopRequests().length;
    const inWorktree = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", forkInfo.id, "go on"], {
      cwd: worktree,
      env: recorded.env,
    });
    expect(inWorktree.exitCode, inWorktree.stderr).toBe(0);
    const sentThere = JSON.stringify(recorded.api.mainLoopRequests()[n]!.body.messages);
    expect(sentThere).toContain("TURN-TWO-REPLY");
    expect(sentThere).not.toContain("TURN-THREE");
    expect(existsSync(path.join(worktree, "renamed.txt"))).toBe(false);
  });

  it("works the same in a SHA-256 repository: record, diff, rewind, undo", async () => {
    const repo = await gitdir(BASE, { objectFormat: "sha256" });
    recorded = await recordSession(repo, threeTurns(repo), PROMPTS);
    const { id, manifest } = recorded;
    expect(manifest.turns.map((t) => t.snapshot.commit.length)).toEqual([64, 64, 64, 64]);
    const diff = await runNudge(["session", "diff", id, "3", "--stat"], { cwd: repo });
    expect(diff.stdout).toContain("data.bin");
    const before = await workTreeListing(repo);
    const rewound = await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo });
    expect(rewound.exitCode, rewound.stderr).toBe(0);
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, manifest.turns[1]!.snapshot.tree));
    expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).exitCode).toBe(0);
    expect(await workTreeListing(repo)).toEqual(before);
  });

  it("refuses what it cannot do safely, changes nothing, and says why", async () => {
    const repo = await gitdir(BASE);
    recorded = await recordSession(repo, threeTurns(repo), PROMPTS);
    const { id } = recorded;
    const snapshot = await workTreeListing(repo);

    const outOfRange = await runNudge(["session", "rewind", id, "9", "--yes"], { cwd: repo });
    expect(outOfRange.exitCode).toBe(1);
    expect(outOfRange.stderr).toMatch(
      /^error: session \w+ has no turn 9\nhint: its turns are 0 to 3; nudge session show \w+ lists them$/m,
    );

    const noYes = await runNudge(["session", "rewind", id, "1"], { cwd: repo });
    expect(noYes.exitCode).toBe(1);
    expect(noYes.stderr).toContain("pass --yes");

    // An ignored, untracked file where the rewind must write one (src/app.ts, which turn 1
    // created, is now ignored and holds the user's own content): git refuses, nothing is lost.
    writeFiles(repo, { ".gitignore": "*.log\nsrc/app.ts\n", "src/app.ts": "my ignored file\n" });
    const before = await workTreeListing(repo);
    const blocked = await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo });
    expect(blocked.exitCode).toBe(1);
    expect(blocked.stderr).toMatch(/cannot rewrite the work tree to turn 1: .*src\/app\.ts/);
    expect(blocked.stderr).toMatch(/^hint: /m);
    expect(readFileSync(path.join(repo, "src/app.ts"), "utf8")).toBe("my ignored file\n");
    expect(await workTreeListing(repo)).toEqual(before);
    expect(snapshot).not.toEqual(before);

    // A session held by a live nudge is locked, not corrupt.
    const host = (await import("node:os")).hostname();
    writeFileSync(
      path.join(recorded.dir, "lock"),
      JSON.stringify({ host, owner: { pid: process.pid, started: null }, claude: null }),
    );
    const manifest = readManifestFile(recorded.dir);
    writeFileSync(path.join(recorded.dir, "manifest.json"), JSON.stringify({ ...manifest, state: "recording" }));
    const locked = await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo });
    expect(locked.exitCode).toBe(1);
    expect(locked.stderr).toContain("is being recorded by another nudge process");
  });
});
