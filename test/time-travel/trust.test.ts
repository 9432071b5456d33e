/**
 * Time travel people can trust (issue "Time travel people can trust"), each defect reproduced
 * through the CLI as a user runs it (real claude, scripted API, real repos): who changed what,
 * which branch --reset-head may move, plans before anything is discarded, dry runs that refuse
 * what the apply would, which session -c picks, moved folders, two recordings in one work tree.
 */
import { execa } from "execa";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";
import { readManifestFile, recordSession, runClaude, type Recorded } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { workTreeListing } from "../support/tree-listing.js";

let recorded: Recorded | undefined;
let api: ScriptedApi | undefined;
afterEach(async () => {
  await recorded?.api.close();
  await api?.close();
  recorded = api = undefined;
});

const list = async (repo: string) => JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);

describe("every change has an author", () => {
  it("edits made between runs are the user's, apart from claude's turn; claude is told which files changed", async () => {
    const repo = await gitdir({ "app.js": "let x = 1;\n" });
    recorded = await recordSession(
      repo,
      [{ tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "claude\n" } }, { text: "done" }],
      ["write a"],
    );
    writeFileSync(path.join(repo, "app.js"), "let x = 2; // mine\n");
    recorded.api.push(
      { tool: "Write", input: { file_path: path.join(repo, "b.txt"), content: "claude again\n" } },
      { text: "done again" },
    );
    const again = await runClaude(repo, ["-c", "write b"], recorded.env);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/! the files changed since this conversation last ran: app\.js/);
    const m = readManifestFile(recorded.dir);
    const turn2 = m.turns[2]!;
    expect(turn2.prompt).toBe("write b"); // what the user typed; the note went to claude with it
    expect(turn2.edits?.patch.filesChanged).toBe(1);
    const claudes = (await runNudge(["session", "diff", recorded.id, "2", "--json"], { cwd: repo })).stdout;
    expect(JSON.parse(claudes).files.map((f: { path: string }) => f.path)).toEqual(["b.txt"]);
    const mine = JSON.parse(
      (await runNudge(["session", "diff", recorded.id, "2", "--edits", "--json"], { cwd: repo })).stdout,
    );
    expect(mine.files.map((f: { path: string }) => f.path)).toEqual(["app.js"]);
    expect((await runNudge(["session", "show", recorded.id], { cwd: repo })).stdout).toMatch(
      /^ +your edits +1 file \+1 -1$/m,
    );
    expect(JSON.stringify(recorded.api.mainLoopRequests().at(-2)!.body.messages)).toMatch(
      /changed outside it: app\.js/,
    );
  });
});

describe("--reset-head", () => {
  it("never moves a branch the session did not record on; the plan says where the session was recorded", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    recorded = await recordSession(
      repo,
      [
        {
          tool: "Bash",
          input: {
            command: "echo c > c.txt && git add c.txt && git commit -qm 'claude commit'",
            description: "commit",
          },
        },
        { text: "committed" },
      ],
      ["commit something"],
    );
    await git(repo, "switch", "-q", "-c", "feature");
    const featureHead = await git(repo, "rev-parse", "HEAD");
    const refused = await runNudge(["session", "rewind", recorded.id, "0", "--reset-head", "--yes"], { cwd: repo });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(
      /^error: --reset-head moves only the branch the session was recorded on: it was recorded on main, HEAD is now on feature; nothing was changed$/m,
    );
    expect(refused.stderr).toMatch(/^hint: switch to it first \(git switch main\)/m);
    expect(await git(repo, "rev-parse", "HEAD")).toBe(featureHead);
    const dry = await runNudge(["session", "rewind", recorded.id, "0", "--dry-run"], { cwd: repo });
    expect(dry.stdout).toContain("branch: the session was recorded on main; you are on feature (HEAD stays)");
  });
});

describe("plan, confirm, undo wherever something is discarded", () => {
  it("fork in place shows its plan, has --dry-run, needs --yes without a terminal, and names the user's own files", async () => {
    const repo = await gitdir();
    recorded = await recordSession(
      repo,
      [{ tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "1\n" } }, { text: "ok" }],
      ["write a"],
    );
    writeFileSync(path.join(repo, "mine.txt"), "the user's\n");
    const before = await workTreeListing(repo);
    const dry = await runNudge(["session", "fork", recorded.id, "0", "--dry-run"], { cwd: repo });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`fork session ${recorded.id} at turn 0, its code put in place here`);
    expect(dry.stdout).toMatch(/^ {2}delete {2}a\.txt$/m);
    expect(dry.stdout).toMatch(/^ {4}delete {5}mine\.txt$/m); // the user's own, named apart
    const noTerminal = await runNudge(["session", "fork", recorded.id, "0"], { cwd: repo });
    expect(noTerminal.exitCode).toBe(1);
    expect(noTerminal.stderr).toMatch(/^error: not confirmed: there is no terminal to ask/m);
    expect(await workTreeListing(repo)).toEqual(before);
    expect(await list(repo)).toHaveLength(1);
    const yes = await runNudge(["session", "fork", recorded.id, "0", "--yes"], { cwd: repo });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect(existsSync(path.join(repo, "mine.txt"))).toBe(false);
    expect((await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo })).exitCode).toBe(0);
    expect(await workTreeListing(repo)).toEqual(before);
  });

  it("/rewind names a file made at the prompt in its plan, and /undo inside the session brings it back", async () => {
    const repo = await gitdir();
    const steps = [
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "1\n" } },
      { text: "ok" },
      { tool: "Bash", input: { command: "echo mine > mine.txt", description: "make a file" } },
      { text: "made" },
    ];
    recorded = await recordSession(repo, steps, ["write a", "make mine", "/rewind 1", "/undo", "/exit"]);
    expect(recorded.stderr).toMatch(/^ {2}delete {2}mine\.txt$/m);
    expect(recorded.stderr).toMatch(/undid the rewind of \w+ to turn 1: the files are as they were before it/);
    expect(readFileSync(path.join(repo, "mine.txt"), "utf8")).toBe("mine\n");
  });
});

describe("a dry run never promises what the apply refuses", () => {
  it("an ignored file in the way: the dry run refuses with the apply's own words", async () => {
    const repo = await gitdir({ ".gitignore": "*.log\n" });
    recorded = await recordSession(
      repo,
      [
        { tool: "Bash", input: { command: "mkdir d && echo x > d/x.txt", description: "make d" } },
        { text: "ok" },
        { tool: "Bash", input: { command: "rm -r d && echo file > d", description: "d a file" } },
        { text: "ok" },
      ],
      ["make d", "d a file"],
    );
    // Back at turn 1 d is a folder; make it hold an ignored file, then ask for turn 2 (d a file) again.
    expect((await runNudge(["session", "rewind", recorded.id, "1", "--yes"], { cwd: repo })).exitCode).toBe(0);
    writeFileSync(path.join(repo, "d", "keep.log"), "ignored, mine\n");
    const dry = await runNudge(["session", "rewind", recorded.id, "2", "--dry-run"], { cwd: repo });
    const real = await runNudge(["session", "rewind", recorded.id, "2", "--yes"], { cwd: repo });
    expect(dry.exitCode).toBe(1);
    expect(real.exitCode).toBe(1);
    expect(dry.stderr).toMatch(/^error: cannot rewrite the work tree to turn 2: ignored file in the way: d$/m);
    expect(real.stderr).toBe(dry.stderr);
  });

  it("a turn that ignores a file shows it as ignored, not deleted, and a rewind to that turn leaves it on disk", async () => {
    const repo = await gitdir({ "app.js": "1\n" });
    writeFiles(repo, { "debug.log": "scratch\n" });
    recorded = await recordSession(
      repo,
      [
        { tool: "Write", input: { file_path: path.join(repo, ".gitignore"), content: "*.log\n" } },
        { text: "ok" },
        { tool: "Write", input: { file_path: path.join(repo, "b.txt"), content: "b\n" } },
        { text: "ok" },
      ],
      ["ignore logs", "write b"],
    );
    const stat = (await runNudge(["session", "diff", recorded.id, "1", "--stat"], { cwd: repo })).stdout;
    expect(stat).toMatch(/debug\.log +\| 1 -.*\(now ignored, still on disk\)/);
    expect((await runNudge(["session", "show", recorded.id], { cwd: repo })).stdout).toMatch(
      /1 now ignored, still on disk/,
    );
    // From turn 0 (debug.log recorded) back to turn 1: the plan keeps it, and so does the rewind.
    expect((await runNudge(["session", "rewind", recorded.id, "0", "--yes"], { cwd: repo })).exitCode).toBe(0);
    const dry = await runNudge(["session", "rewind", recorded.id, "1", "--dry-run"], { cwd: repo });
    expect(dry.stdout).toMatch(/^ {2}keep {4}debug\.log \(ignored at that point, so it stays on disk\)$/m);
    expect((await runNudge(["session", "rewind", recorded.id, "1", "--yes"], { cwd: repo })).exitCode).toBe(0);
    expect(readFileSync(path.join(repo, "debug.log"), "utf8")).toBe("scratch\n");
  });
});

describe("which session", () => {
  it("-c continues the session used last, not the one made last; a run that asked nothing leaves no session", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "A1" }, { text: "B1" }, { text: "A2" }, { text: "A3" }]);
    const env = claudeEnv(api, path.join(tempDir(), "cfg"));
    expect((await runClaude(repo, [], env, "in A\n")).exitCode).toBe(0);
    const [a] = await list(repo);
    expect((await runClaude(repo, [], env, "in B\n")).exitCode).toBe(0);
    expect((await runClaude(repo, ["-r", a.id], env, "A again\n")).exitCode).toBe(0);
    const empty = await runClaude(repo, [], env, ""); // opened and closed without a prompt
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(await list(repo)).toHaveLength(2);
    expect((await runClaude(repo, ["-c"], env, "which one?\n")).exitCode).toBe(0);
    expect(readManifestFile(a.path).turns.map((t) => t.prompt)).toEqual([null, "in A", "A again", "which one?"]);
  });

  it("a session whose project folder was moved is found from the same repository and goes on there", async () => {
    const repo = await gitdir();
    recorded = await recordSession(repo, [{ text: "before the move" }], ["first"]);
    const moved = path.join(tempDir(), "moved app");
    renameSync(repo, moved);
    recorded.api.push({ text: "after the move" });
    const again = await runClaude(moved, ["-c", "second"], recorded.env);
    expect(again.exitCode, again.stderr).toBe(0);
    const m = readManifestFile(path.join(moved, ".git", "nudge", "sessions", recorded.id));
    expect(m.repo.root).toBe(moved);
    expect(m.turns.map((t) => t.prompt)).toEqual([null, "first", "second"]);
    expect(JSON.stringify(recorded.api.mainLoopRequests().at(-1)!.body.messages)).toContain("before the move");
  });

  it("a second recording in a work tree with a live one is refused with its pid and session, unless --force", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ delayMs: 4000, then: { text: "slow" } }, { text: "forced" }]);
    const env = claudeEnv(api, path.join(tempDir(), "cfg"));
    const first = execa("node", [NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "slow one"], {
      cwd: repo,
      env: { NO_COLOR: "1", ...env },
      input: "",
      reject: false,
    });
    while (api.mainLoopRequests().length === 0) await new Promise((r) => setTimeout(r, 25));
    const second = await runClaude(repo, [], env, "me too\n");
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(
        `^error: session \\w+ is being recorded by another nudge process in ${repo.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(pid \\d+\\)$`,
        "m",
      ),
    );
    expect(second.stderr).toMatch(/^hint: .*--force/m);
    const forced = await runClaude(repo, ["--force"], env, "me too\n");
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect((await first).exitCode).toBe(0);
    expect(await list(repo)).toHaveLength(2);
  });
});

describe("damage is a user error, checked before any side effect", () => {
  it("a pruned snapshot: rewind and fork in place refuse with exit 1, nothing changed", async () => {
    const repo = await gitdir();
    recorded = await recordSession(
      repo,
      [{ tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "1\n" } }, { text: "ok" }],
      ["write a"],
    );
    await git(repo, "update-ref", "-d", `refs/nudge/sessions/${recorded.id}`);
    await git(repo, "reflog", "expire", "--expire=now", "--all");
    await git(repo, "gc", "-q", "--prune=now");
    const before = await workTreeListing(repo);
    for (const args of [
      ["rewind", recorded.id, "1", "--yes"],
      ["fork", recorded.id, "1", "--yes"],
    ]) {
      const r = await runNudge(["session", ...args], { cwd: repo });
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/is gone from the repository$/m);
      expect(r.stderr).not.toMatch(/nudge bug/);
    }
    expect(await workTreeListing(repo)).toEqual(before);
    expect(await list(repo)).toHaveLength(1);
  });

  it("a pruned snapshot commit whose tree is there again: a fork in place refuses with exit 1, nothing made", async () => {
    const repo = await gitdir();
    recorded = await recordSession(
      repo,
      [{ tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "1\n" } }, { text: "ok" }],
      ["write a"],
    );
    const turn = readManifestFile(recorded.dir).turns[1]!;
    await git(repo, "update-ref", "-d", `refs/nudge/sessions/${recorded.id}`);
    await git(repo, "reflog", "expire", "--expire=now", "--all");
    await git(repo, "gc", "-q", "--prune=now");
    // The work tree as the turn left it, written as a tree again (as any capture of it would): the commit stays gone.
    const index = path.join(tempDir(), "index");
    await execa("git", ["add", "-A"], { cwd: repo, env: { GIT_INDEX_FILE: index } });
    const tree = (await execa("git", ["write-tree"], { cwd: repo, env: { GIT_INDEX_FILE: index } })).stdout.trim();
    expect(tree).toBe(turn.snapshot.tree);
    expect((await git(repo, "cat-file", "-t", turn.snapshot.tree)).trim()).toBe("tree");
    const r = await runNudge(["session", "fork", recorded.id, "1", "--yes"], { cwd: repo });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/is gone from the repository$/m);
    expect(r.stderr).not.toMatch(/nudge bug/);
    expect(await list(repo)).toHaveLength(1);
  });
});
