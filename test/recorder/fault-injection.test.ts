/**
 * Crash safety of recording, proven by failing on purpose (NUDGE_FAULT, src/base/fault-injection.ts)
 * at each point of a turn's life: kill -9 of nudge alone, of its whole process group (its git
 * children too), and a full disk at each kind of write. After each: the bundle loads, at most the
 * turn in flight is incomplete, `run -c` recovers it and records a new turn, and no temp or lock
 * file is left behind.
 */
import { execa } from "execa";
import { readdirSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { readStreamOf } from "../support/stream.js";

const streamNewlines = (b: Buffer) => b.toString("latin1").split("\n").length - 1;

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** nudge in a process group of its own, so a fault that kills the group kills nothing of the test's. */
function nudge(repo: string, args: string[], env: Record<string, string>, input: string) {
  return execa(
    "node",
    [NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits", ...args],
    {
      cwd: repo,
      // The untracked cache pinned on: the fast path is the one under test (and no background check runs).
      env: { NO_COLOR: "1", NUDGE_UNTRACKED_CACHE: "1", ...env },
      input,
      reject: false,
      detached: true,
      timeout: 60_000,
    },
  );
}

/** Every file under a folder whose name says it was left half made: temp files of atomic writes, git locks. */
function leftovers(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.tmp$|\.lock$/.test(e.name) || e.name === "lock") found.push(path.relative(dir, full));
    }
  };
  if (existsSync(dir)) walk(dir);
  return found;
}

const steps = (repo: string) => [
  { tool: "Write", input: { file_path: path.join(repo, "one.txt"), content: "1\n" } },
  { text: "wrote one" },
  { tool: "Write", input: { file_path: path.join(repo, "two.txt"), content: "2\n" } },
  { text: "wrote two" },
];

async function crashThenRecover(fault: string, opts: { expectFirstExit?: number } = {}) {
  const repo = await gitdir();
  const cfg = path.join(tempDir(), "cfg");
  api = await startScriptedApi([...steps(repo), { text: "after recovery" }]);
  const env = claudeEnv(api, cfg);
  const first = await nudge(repo, [], { ...env, NUDGE_FAULT: fault }, "first\nsecond\n");
  if (opts.expectFirstExit !== undefined) expect(first.exitCode, first.stderr).toBe(opts.expectFirstExit);
  expect(first.stderr).not.toMatch(/\n\s+at /); // never a stack trace

  // The bundle loads whatever happened.
  const listed = await runNudge(["session", "list", "--json"], { cwd: repo });
  expect(listed.exitCode, listed.stderr).toBe(0);
  const [session] = JSON.parse(listed.stdout);
  const crashed = readManifestFile(session.path);
  expect(crashed.turns[0]!.n).toBe(0);

  // Claude killed with nudge (its own group survives a kill of nudge's): give the scripted API its steps back if unused.
  const again = await nudge(repo, ["-c"], env, "third\n");
  expect(again.exitCode, again.stderr).toBe(0);
  const m = readManifestFile(session.path);
  const prompts = m.turns.map((t) => t.prompt);
  expect(prompts[0]).toBeNull();
  expect(prompts.at(-1)).toBe("third");
  expect(m.turns.at(-1)!.status).toBe("complete");
  // At most the turn in flight is incomplete; a prompt that was begun is recorded once (one nudge
  // died before reading is not: it never left the pipe).
  expect(prompts.filter((p) => p === "first").length).toBeLessThanOrEqual(1);
  expect(m.turns.slice(1, -1).filter((t) => t.status !== "complete").length).toBeLessThanOrEqual(1);
  expect(m.turns.map((t) => t.n)).toEqual(m.turns.map((_, i) => i));
  expect(m.unsaved).toEqual([]);
  expect(m.state).toBe("complete");
  // Nothing half made is left: no temp files, no locks (the session's, git's on the private index).
  expect(leftovers(session.path)).toEqual([]);
  expect(leftovers(path.join(repo, ".git", "nudge", "index"))).toEqual([]);
  // Each turn holds exactly its own work: one.txt came with "first", two.txt with "second".
  for (const t of m.turns.filter((t) => t.status === "complete")) {
    const files = (await execa("git", ["ls-tree", "-r", "--name-only", t.snapshot.tree], { cwd: repo })).stdout.split(
      "\n",
    );
    if (t.prompt === "first") expect(files).toContain("one.txt");
    if (t.prompt === "first") expect(files).not.toContain("two.txt");
    if (t.prompt === "second") expect(files).toContain("two.txt");
  }
  // The stream reads back whole, wherever its pieces were left: one time per line, each turn's byte range its own lines.
  const stream = readStreamOf(session.path);
  expect(streamNewlines(stream)).toBe(
    readFileSync(path.join(session.path, "timing.txt"), "utf8").split("\n").length - 1,
  );
  for (const t of m.turns.filter((t) => t.bytes)) {
    expect(streamNewlines(stream.subarray(0, t.bytes!.from))).toBe(t.lines.from);
    expect(streamNewlines(stream.subarray(t.bytes!.from, t.bytes!.to))).toBe(t.lines.to - t.lines.from);
  }
  expect(readdirSync(session.path).filter((n) => n.startsWith("conversation.jsonl."))).toEqual([]);
  // Every saved turn's snapshot is kept by the session's ref.
  for (const t of m.turns)
    await execa("git", ["merge-base", "--is-ancestor", t.snapshot.commit, `refs/nudge/sessions/${m.id}`], {
      cwd: repo,
    });
  return { repo, session: m, first, again };
}

describe("kill -9 of nudge at each point of recording a turn", () => {
  it.each([
    ["after-capture:kill", "the code is captured, nothing of the turn's end written"],
    ["after-capture:kill@2", "the second turn's code captured"],
    ["after-ended:kill", "the turn's files staged, its tree not yet written"],
    ["after-ended:kill@2", "the second turn's files staged, its tree not yet written"],
    ["journal-append:kill@3", "mid-journal: the first turn's `edits` record (claude's first tool waits for it)"],
    ["journal-append:kill@4", "the next turn's `begin` (a waiting prompt goes at the first turn's result)"],
    ["journal-append:kill@5", "the first turn's `ended` record, written while the next prompt is with claude"],
    ["after-snapshot:kill", "snapshot commit and patch written, no turn record"],
    ["after-turn-record:kill", "the turn record written, the header not"],
    [
      "atomic-write:kill@4",
      "inside an atomic write (its temp file half made; the first is the work tree's recordings registry)",
    ],
    ["transcript-append:kill", "while claude's transcript is copied"],
    ["log-append:kill@6", "while claude's output is teed"],
    [
      "piece-finish:kill",
      "the stream's piece renamed into conversation.d, the new conversation.jsonl not yet in place (at the session's end)",
    ],
    ["piece-compress:kill", "a piece's .gz in place, its plain file not yet removed"],
  ])("%s (%s)", async (fault) => {
    await crashThenRecover(fault);
  });

  it("of nudge's whole process group (its git children too), mid-turn", async () => {
    await crashThenRecover("after-capture:kill-group");
  });
});

describe("a full disk at each kind of write", () => {
  it.each([
    ["journal-append:enospc@4", "the turn journal: the next turn's `begin`, its prompt not sent"],
    [
      "journal-append:enospc@5",
      "the turn journal: the first turn's `ended` record, the next prompt already with claude",
    ],
    ["log-append:enospc@4", "what nudge writes to claude, before claude has said a word: the session is kept for -c"],
    ["log-append:enospc@6", "claude's output"],
    ["atomic-write:enospc@6", "a patch, the header, a transcript copy"],
    [
      "atomic-write:enospc@11",
      "the header written as the session ends, every turn saved (QA: its hint said to run the command again)",
    ],
  ])("%s (%s): exit 1 with a hint, the bundle loads, the next run goes on", async (fault) => {
    const { first } = await crashThenRecover(fault, { expectFirstExit: 1 });
    expect(first.stderr).toMatch(/^error: .*(ENOSPC|no space)/m);
    expect(first.stderr).toMatch(/^hint: free (some )?disk space.*then continue with: nudge claude run -c$/m);
  });
});

describe("a full disk when the capture of your edits is recorded", () => {
  it("holds claude's first tool, fails the turn with a hint, and -c recovers it with nothing of claude's written", async () => {
    const repo = await gitdir();
    const cfg = path.join(tempDir(), "cfg");
    api = await startScriptedApi([...steps(repo), { text: "after recovery" }]);
    const env = claudeEnv(api, cfg);
    // The journal's third record is the first turn's `edits` (turn 0's record, its `begin`, then that).
    const first = await nudge(repo, [], { ...env, NUDGE_FAULT: "journal-append:enospc@3" }, "first\nsecond\n");
    expect(first.exitCode, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/^hint: free (some )?disk space.*then continue with: nudge claude run -c$/m);
    expect(first.stderr).not.toMatch(/\n\s+at /);
    // claude's Write waited for the capture, which could not be recorded: it never ran.
    expect(existsSync(path.join(repo, "one.txt"))).toBe(false);
    const again = await nudge(repo, ["-c"], env, "third\n");
    expect(again.exitCode, again.stderr).toBe(0);
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    const m = readManifestFile(session.path);
    expect(m.turns.map((t) => t.prompt)).toEqual([null, "first", "third"]);
    expect(m.turns.at(-1)!.status).toBe("complete");
    expect(m.unsaved).toEqual([]);
  });
});

describe("a stale lock on the session's private index", () => {
  it("left by a killed git, does not stop later turns from being saved", async () => {
    const repo = await gitdir();
    const cfg = path.join(tempDir(), "cfg");
    api = await startScriptedApi([{ text: "one" }, { text: "two" }]);
    const env = claudeEnv(api, cfg);
    expect((await nudge(repo, [], env, "first\n")).exitCode).toBe(0);
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    // What a container stop leaves: git's lock on nudge's index for this session, its holder gone.
    writeFileSync(path.join(repo, ".git", "nudge", "index", `${session.id}.lock`), "");
    const run = await nudge(repo, ["-c"], env, "second\n");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readManifestFile(session.path).turns.map((t) => [t.prompt, t.status])).toEqual([
      [null, "complete"],
      ["first", "complete"],
      ["second", "complete"],
    ]);
  });
});
