/**
 * A crashed session recovered after another session recorded in the same work tree.
 * Reproduced through the built CLI with the real claude binary and the scripted API on real temp
 * repositories.
 */
import { execa } from "execa";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile, runClaude } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/**
 * `nudge claude run` (of a new session, or `-r` one) killed with -9 while claude works on a Bash
 * that wrote a-made.txt; resolves once the orphaned claude has taken its next (delayed) step, so
 * the scripted API's later steps go to the next run. `requests`: how many the API had seen then.
 */
async function killMidTurn(repo: string, env: Record<string, string>, args: string[], requests: number): Promise<void> {
  const a = execa(
    "node",
    [NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "--allowed-tools", "Bash", ...args],
    {
      cwd: repo,
      env,
      stdin: "pipe", // held open: nudge waits for more prompts
      reject: false,
    },
  );
  const start = Date.now();
  while (!existsSync(path.join(repo, "a-made.txt"))) {
    if (Date.now() - start > 30_000) throw new Error("claude never ran the tool");
    await new Promise((r) => setTimeout(r, 50));
  }
  a.kill("SIGKILL");
  await a;
  // claude outlives its nudge: wait until it has asked for (and taken) the delayed step.
  while (api!.mainLoopRequests().length < requests) {
    if (Date.now() - start > 30_000) throw new Error("the orphaned claude never asked again");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const MAKE_A_AND_HANG = [
  { tool: "Bash", input: { command: "echo from-a > a-made.txt; sleep 2" } },
  { delayMs: 30_000, then: { text: "never seen" } },
];

describe("crash recovery", () => {
  it("a crashed session recovered later does not take another session's changes as its own turn", async () => {
    // Session A: nudge is killed (-9) while claude works. Then session B records a change (c.txt).
    // `run -r A` recovered A's in-flight turn by snapshotting the work tree *now*, so A's turn 1
    // claimed B's c.txt as claude's work in A.
    const repo = await gitdir({ "a.txt": "a\n" });
    api = await startScriptedApi(MAKE_A_AND_HANG);
    const env = { ...claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude")), NO_COLOR: "1" };
    await killMidTurn(repo, env, ["make a"], 2);
    const idA = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout)[0].id as string;

    api.push({ tool: "Bash", input: { command: "echo from-b > c.txt" } }, { text: "made c" });
    const b = await runClaude(repo, ["make c"], env);
    expect(b.exitCode, b.stderr).toBe(0);

    api.push({ text: "back in A" });
    const resumed = await runClaude(repo, ["-r", idA, "continue"], env);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const diff = JSON.parse((await runNudge(["session", "diff", idA, "1", "--json"], { cwd: repo })).stdout);
    const paths = diff.files.map((f: { path: string }) => f.path);
    expect(paths).toContain("a-made.txt");
    expect(paths).not.toContain("c.txt"); // session B made it, not A's claude
  });

  it("a session that crashed after the session index last saw it complete is still recovered before another records", async () => {
    // A is recorded to the end (the index, written by the listing, says complete), then continued
    // with -r and killed mid-turn: its header says recording now, the index does not know.
    const repo = await gitdir({ "a.txt": "a\n" });
    api = await startScriptedApi([{ text: "first answer" }]);
    const env = { ...claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude")), NO_COLOR: "1" };
    const first = await runClaude(repo, ["first"], env);
    expect(first.exitCode, first.stderr).toBe(0);
    const listed = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as {
      id: string;
      state: string;
    }[];
    expect(listed).toMatchObject([{ state: "complete" }]);
    const idA = listed[0]!.id;
    expect(readFileSync(path.join(repo, ".git", "nudge", "sessions-index.txt"), "utf8")).toContain(`${idA}\t`);

    api.push(...MAKE_A_AND_HANG);
    await killMidTurn(repo, env, ["-r", idA, "make a"], 3);

    api.push({ tool: "Bash", input: { command: "echo from-b > c.txt" } }, { text: "made c" });
    const b = await runClaude(repo, ["make c"], env);
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stderr).toMatch(new RegExp(`session ${idA}: recovered turn 2`));
    const diff = JSON.parse((await runNudge(["session", "diff", idA, "2", "--json"], { cwd: repo })).stdout);
    const paths = diff.files.map((f: { path: string }) => f.path);
    expect(paths).toContain("a-made.txt");
    expect(paths).not.toContain("c.txt");
  });

  it("from QA: a turn recovered by the session's own next run is not marked as sharing the work tree with itself", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    api = await startScriptedApi(MAKE_A_AND_HANG);
    const env = { ...claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude")), NO_COLOR: "1" };
    await killMidTurn(repo, env, ["make a"], 2);
    const idA = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout)[0].id as string;
    api.push({ text: "back in A" });
    const resumed = await runClaude(repo, ["-r", idA, "continue"], env);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/recovered turn 1/);
    expect(resumed.stderr).not.toMatch(/also recorded in this work tree/);
    const turns = readManifestFile(path.join(repo, ".git", "nudge", "sessions", idA)).turns;
    expect(turns.filter((t) => t.sharedWith && t.sharedWith.length > 0).map((t) => t.n)).toEqual([]);
  });
});
