/**
 * A typed prompt goes to claude at once; the user's edits since the last turn are captured beside
 * it, and claude's tools wait until that capture is recorded (src/live/edits-gate.ts). Through
 * the built CLI with the real claude and the scripted API; a fault-point delay holds the capture
 * so that what would race is made to.
 */
import { execa, type ResultPromise } from "execa";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseJournal } from "../../src/store/turn-journal.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile, runClaude } from "../support/record.js";
import { NUDGE_CLI } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { until } from "../support/until.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function nudge(repo: string, env: Record<string, string>): ResultPromise<{ stdin: "pipe"; reject: false }> {
  return execa(
    "node",
    [
      NUDGE_CLI,
      "claude",
      "run",
      "--claude-bin",
      CLAUDE_BIN,
      "--permission-mode",
      "acceptEdits",
      "--allowed-tools",
      "Bash",
    ],
    {
      cwd: repo,
      env: { ...env, NO_COLOR: "1" },
      stdin: "pipe", // prompts typed one at a time, as a person would
      reject: false,
      timeout: 60_000,
    },
  );
}

const sessionDir = (repo: string) => {
  const sessions = path.join(repo, ".git", "nudge", "sessions");
  return path.join(sessions, readdirSync(sessions)[0]!);
};
const journal = (dir: string) => {
  const file = path.join(dir, "turns.jsonl");
  return existsSync(file) ? parseJournal(readFileSync(file, "utf8"), file) : [];
};
const files = async (repo: string, tree: string) =>
  (await execa("git", ["ls-tree", "-r", "--name-only", tree], { cwd: repo })).stdout.split("\n");

/** Turn 1 recorded and nudge waiting for the next prompt; then the user edits a file. */
async function firstTurnThenEdit(repo: string, run: ResultPromise<{ stdin: "pipe"; reject: false }>): Promise<string> {
  run.stdin!.write("first\n");
  const dir = await until("turn 1 saved", async () =>
    existsSync(path.join(repo, ".git", "nudge", "sessions")) &&
    journal(sessionDir(repo)).some((r) => r.type === "turn" && r.n === 1)
      ? sessionDir(repo)
      : undefined,
  );
  // The end line follows the record; a prompt typed before the loop asks again would count as typed ahead.
  await new Promise((r) => setTimeout(r, 500));
  writeFileSync(path.join(repo, "user.txt"), "typed by the user between turns\n");
  return dir;
}

describe("a typed prompt and the user's edits", () => {
  it("the prompt reaches claude while the edits are still being captured; claude's first Write waits for the capture", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    api = await startScriptedApi([
      { text: "one" },
      {
        after: released,
        then: { tool: "Write", input: { file_path: path.join(repo, "claude.txt"), content: "written by claude\n" } },
      },
      { text: "two" },
    ]);
    // The second capture (turn 2's edits) is held for 3 s before it scans.
    const env = {
      ...claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude")),
      NUDGE_FAULT: "edits-capture:delay-3000@2",
    };
    const run = nudge(repo, env);
    const dir = await firstTurnThenEdit(repo, run);
    run.stdin!.write("second\n");
    await until("turn 2's request", async () => (api!.mainLoopRequests().length >= 2 ? true : undefined));
    // The prompt is durable and with claude; the edits are not captured yet (no tree recorded for them).
    const atRequest = journal(dir).filter((r) => r.n === 2);
    expect(atRequest.map((r) => r.type)).toEqual(["begin"]);
    expect(atRequest[0]).toMatchObject({ prompt: "second", editsTree: null, editsPending: true });
    release(); // claude's Write comes now, while the capture is still held
    run.stdin!.end();
    const result = await run;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "✎ the files changed since the last turn: recorded as your edits, apart from claude's next turn",
    );

    const turn2 = readManifestFile(dir).turns.find((t) => t.n === 2)!;
    // The user's edit is theirs, and claude's Write (held until the capture was recorded) is not in it.
    expect(await files(repo, turn2.edits!.snapshot.tree)).toContain("user.txt");
    expect(await files(repo, turn2.edits!.snapshot.tree)).not.toContain("claude.txt");
    expect(await files(repo, turn2.snapshot.tree)).toEqual(expect.arrayContaining(["user.txt", "claude.txt"]));
    const patch = readFileSync(path.join(dir, turn2.patch.file), "utf8");
    expect(patch).toContain("claude.txt");
    expect(patch).not.toContain("user.txt");
  }, 90_000);

  it("a prompt typed while the last turn is still being saved: the edits made meanwhile are the user's, not claude's next turn (QA)", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    api = await startScriptedApi([
      { text: "one" },
      { tool: "Write", input: { file_path: path.join(repo, "claude.txt"), content: "written by claude\n" } },
      { text: "two" },
    ]);
    const release = path.join(tempDir(), "release");
    // Turn 1's save is held after its snapshot: its code is captured, its record not yet written.
    const env = {
      ...claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude")),
      NUDGE_FAULT: "after-snapshot:hold@1",
      NUDGE_FAULT_RELEASE: release,
    };
    const run = nudge(repo, env);
    run.stdin!.write("first\n");
    const dir = await until("turn 1 captured", async () =>
      existsSync(path.join(repo, ".git", "nudge", "sessions")) &&
      journal(sessionDir(repo)).some((r) => r.type === "ended" && r.n === 1)
        ? sessionDir(repo)
        : undefined,
    );
    writeFileSync(path.join(repo, "user.txt"), "typed by the user while the turn was saved\n");
    run.stdin!.write("second\n");
    await new Promise((r) => setTimeout(r, 500)); // the prompt is read, and waits for the save
    writeFileSync(release, "");
    run.stdin!.end();
    const result = await run;
    expect(result.exitCode, result.stderr).toBe(0);
    const turn2 = readManifestFile(dir).turns.find((t) => t.n === 2)!;
    expect(turn2.edits).not.toBeNull();
    expect(await files(repo, turn2.edits!.snapshot.tree)).toContain("user.txt");
    const patch = readFileSync(path.join(dir, turn2.patch.file), "utf8");
    expect(patch).toContain("claude.txt");
    expect(patch).not.toContain("user.txt");
  }, 90_000);

  it("nudge killed before the edits are recorded: the next run recovers the turn, the edits folded into it, and says so", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    api = await startScriptedApi([
      { text: "one" },
      { tool: "Write", input: { file_path: path.join(repo, "claude.txt"), content: "written by claude\n" } },
      { text: "two" },
    ]);
    const env = { ...claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude")), NUDGE_FAULT: "edits-capture:kill@2" };
    const run = nudge(repo, env);
    const dir = await firstTurnThenEdit(repo, run);
    run.stdin!.write("second\n");
    const killed = await run;
    expect(killed.signal).toBe("SIGKILL");
    const pending = journal(dir);
    expect(pending.find((r) => r.type === "begin" && r.n === 2)).toMatchObject({ editsPending: true });
    expect(pending.some((r) => r.type === "edits" && r.n === 2)).toBe(false);

    // claude outlives its nudge, its Write waiting on a hook nobody can answer now: it never runs.
    await until("claude's Write requested", async () => (api!.mainLoopRequests().length >= 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500));
    expect(existsSync(path.join(repo, "claude.txt"))).toBe(false);
    api.push({ text: "three" });
    const { NUDGE_FAULT: _, ...calm } = env;
    const again = await runClaude(repo, ["-c", "third"], calm);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      "turn 2: nudge stopped before it had recorded your edits from before the prompt; they are recorded with the turn's changes",
    );
    const turn2 = readManifestFile(dir).turns.find((t) => t.n === 2)!;
    expect(turn2.edits).toBeNull();
    expect(readFileSync(path.join(dir, turn2.patch.file), "utf8")).toContain("user.txt");
    expect(existsSync(path.join(repo, "claude.txt"))).toBe(false);
  }, 90_000);
});
