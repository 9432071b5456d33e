/**
 * A prompt that is already waiting when a turn's result comes (piped prompts, a loop, a prompt
 * typed ahead) goes to claude at once: the turn's code is captured beside it, and claude's tools
 * wait for that capture (src/live/edits-gate.ts), so the next turn's changes never land in the
 * last one's snapshot. Through the built CLI with the real claude and the scripted API; fault
 * points hold the capture so that what would race is made to.
 */
import { execa } from "execa";
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
import { readStreamOf } from "../support/stream.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const sessionDir = (repo: string) => {
  const sessions = path.join(repo, ".git", "nudge", "sessions");
  return existsSync(sessions) ? path.join(sessions, readdirSync(sessions)[0]!) : undefined;
};
const journal = (dir: string) => {
  const file = path.join(dir, "turns.jsonl");
  return existsSync(file) ? parseJournal(readFileSync(file, "utf8"), file) : [];
};
const files = async (repo: string, tree: string) =>
  (await execa("git", ["ls-tree", "-r", "--name-only", tree], { cwd: repo })).stdout.split("\n");
/** A line of claude's asking nudge's hooks before it writes `file`. */
const isHookCall = (line: string, file: string) =>
  line.includes('"subtype":"hook_callback"') && line.includes(`${file}"`);
/** claude asked nudge's hooks before writing `file` (its line is in the recording). */
const hookAsked = (dir: string, file: string) =>
  readStreamOf(dir)
    .toString("utf8")
    .split("\n")
    .some((l) => isHookCall(l, file));

function twoTurns(repo: string, secondWrite: Promise<unknown>) {
  return [
    { tool: "Write", input: { file_path: path.join(repo, "one.txt"), content: "turn one\n" } },
    { text: "one" },
    {
      after: secondWrite,
      then: { tool: "Write", input: { file_path: path.join(repo, "two.txt"), content: "turn two\n" } },
    },
    { text: "two" },
  ];
}

describe("a prompt waiting at a turn's result", () => {
  it("goes to claude before the turn's code is captured; claude's next Write waits for the capture and stays out of it", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    let letClaudeWrite!: () => void;
    api = await startScriptedApi(twoTurns(repo, new Promise<void>((r) => (letClaudeWrite = r))));
    const releaseFile = path.join(tempDir("nudge-release-"), "go");
    const env = {
      ...claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude")),
      NO_COLOR: "1",
      NUDGE_FAULT: "turn-capture:hold@1",
      NUDGE_FAULT_RELEASE: releaseFile,
    };
    const run = execa(
      "node",
      [NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits"],
      { cwd: repo, env, input: "first\nsecond\n", reject: false, timeout: 80_000 },
    );

    // Turn 1's capture is held; turn 2's prompt reaches claude all the same.
    await until("turn 2's request", async () => (api!.mainLoopRequests().length >= 3 ? true : undefined));
    const dir = sessionDir(repo)!;
    expect(journal(dir).map((r) => `${r.type ?? "turn"} ${r.n}`)).toEqual(["turn 0", "begin 1", "edits 1", "begin 2"]);
    // claude's Write comes now: it is asked about, and held, while turn 1's code is not yet captured.
    letClaudeWrite();
    await until("the Write's hook call", async () => (hookAsked(dir, "two.txt") ? true : undefined));
    await new Promise((r) => setTimeout(r, 1000));
    expect(existsSync(path.join(repo, "two.txt"))).toBe(false);
    writeFileSync(releaseFile, "");

    const result = await run;
    expect(result.exitCode, result.stderr).toBe(0);
    const turns = readManifestFile(dir).turns;
    const [one, two] = [turns.find((t) => t.n === 1)!, turns.find((t) => t.n === 2)!];
    expect(await files(repo, one.snapshot.tree)).toContain("one.txt");
    expect(await files(repo, one.snapshot.tree)).not.toContain("two.txt");
    expect(await files(repo, two.snapshot.tree)).toEqual(expect.arrayContaining(["one.txt", "two.txt"]));
    expect(readFileSync(path.join(dir, two.patch.file), "utf8")).not.toContain("one.txt");
    expect(one.lines.to).toBe(two.lines.from);
  }, 90_000);

  it("nudge killed before that capture is recorded: the next run recovers both turns, each with its own lines, and the held Write never ran", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    let letClaudeWrite!: () => void;
    api = await startScriptedApi(twoTurns(repo, new Promise<void>((r) => (letClaudeWrite = r))));
    const releaseFile = path.join(tempDir("nudge-release-"), "go");
    const cfg = path.join(tempDir("nudge-cfg-"), "claude");
    const env = {
      ...claudeEnv(api, cfg),
      NO_COLOR: "1",
      NUDGE_FAULT: "turn-capture:hold@1,after-capture:kill@1",
      NUDGE_FAULT_RELEASE: releaseFile,
    };
    const run = execa(
      "node",
      [NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits"],
      { cwd: repo, env, input: "first\nsecond\n", reject: false, timeout: 80_000 },
    );
    await until("turn 2's request", async () => (api!.mainLoopRequests().length >= 3 ? true : undefined));
    const dir = sessionDir(repo)!;
    letClaudeWrite();
    await until("the Write's hook call", async () => (hookAsked(dir, "two.txt") ? true : undefined));
    writeFileSync(releaseFile, ""); // the capture goes on, and nudge is killed before its record
    const killed = await run;
    expect(killed.signal).toBe("SIGKILL");
    expect(journal(dir).map((r) => `${r.type ?? "turn"} ${r.n}`)).toEqual(["turn 0", "begin 1", "edits 1", "begin 2"]);

    await new Promise((r) => setTimeout(r, 1000));
    expect(existsSync(path.join(repo, "two.txt"))).toBe(false);
    api.push({ text: "three" });
    const again = await runClaude(repo, ["-c", "third"], { ...claudeEnv(api, cfg), NO_COLOR: "1" });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain("recovered turn 1");
    expect(again.stderr).toContain("recovered turn 2");
    const turns = readManifestFile(dir).turns;
    const [one, two] = [turns.find((t) => t.n === 1)!, turns.find((t) => t.n === 2)!];
    // Turn 1's lines stop where turn 2's prompt went: its result is in them, turn 2's hook call is not.
    expect(one.lines.to).toBe(two.lines.from);
    const lines = readStreamOf(dir).toString("utf8").split("\n");
    const ofOne = lines.slice(one.lines.from, one.lines.to).join("\n");
    expect(ofOne).toContain('"type":"result"');
    expect(lines.slice(one.lines.from, one.lines.to).some((l) => isHookCall(l, "two.txt"))).toBe(false);
    expect(lines.slice(two.lines.from, two.lines.to).some((l) => isHookCall(l, "two.txt"))).toBe(true);
    expect(await files(repo, one.snapshot.tree)).toContain("one.txt");
    expect(existsSync(path.join(repo, "two.txt"))).toBe(false);
  }, 90_000);
});
