/**
 * What happens when things go wrong, caused for real: Ctrl-C (SIGINT) mid-turn, claude killed
 * mid-turn, nudge killed with -9, and the errors a user must get a hint for.
 */
import { execa } from "execa";
import { readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Manifest } from "../../src/store/manifest-schema.js";
import { readManifestFile } from "../support/record.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function onlySession(repo: string): Promise<{ id: string; path: string; state: string; manifest: Manifest }> {
  const list = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
  expect(list).toHaveLength(1);
  const manifest = readManifestFile(list[0].path);
  return { ...list[0], manifest };
}

function startNudge(repo: string, args: string[], env: Record<string, string>, input: string) {
  return execa("node", [NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, ...args], {
    cwd: repo,
    env: { NO_COLOR: "1", ...env },
    input,
    reject: false,
  });
}

describe("when things go wrong", () => {
  it("Ctrl-C during a turn interrupts that turn only; the next prompt runs normally", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { text: "first answer" },
      { delayMs: 30_000, then: { text: "too late" } },
      { text: "third answer" },
    ]);
    const env = claudeEnv(api, path.join(tempDir(), "cfg"));
    const nudge = startNudge(repo, [], env, "first question\nslow question\nnext question\n");
    await waitFor(() => api!.mainLoopRequests().length === 2);
    nudge.kill("SIGINT");
    const run = await nudge;
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("interrupting the turn");
    expect(run.stderr).toContain("turn interrupted");
    expect(run.stdout).toContain("third answer");
    const { id, manifest, state } = await onlySession(repo);
    expect(state).toBe("complete");
    expect(manifest.turns.map((t) => t.status)).toEqual(["complete", "complete", "interrupted", "complete"]);
    expect(manifest.turns[3]!.claudeSessionId).toBe(manifest.turns[1]!.claudeSessionId);

    // The interrupted turn has no reply of its own: a rewind to it resumes claude from the last
    // reply before it, and says so.
    const plan = await runNudge(["session", "rewind", id, "2", "--dry-run"], { cwd: repo });
    expect(plan.stdout).toContain("continues from claude's last reply in turn 1 (turn 2 has no reply)");
    expect((await runNudge(["session", "rewind", id, "2", "--yes"], { cwd: repo })).exitCode).toBe(0);
    api.push({ text: "after the rewind" });
    const resumed = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", id, "go on"], {
      cwd: repo,
      env,
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const sent = JSON.stringify(api.mainLoopRequests().at(-1)!.body.messages);
    expect(sent).toContain("first answer");
    expect(sent).not.toContain("slow question");
    expect(sent).not.toContain("third answer");
  });

  it("SIGTERM (or the terminal closing) ends the session cleanly: the turn is interrupted, the bundle complete", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ delayMs: 30_000, then: { text: "too late" } }]);
    const nudge = startNudge(repo, [], claudeEnv(api, path.join(tempDir(), "cfg")), "a long task\nnever sent\n");
    await waitFor(() => api!.mainLoopRequests().length === 1);
    nudge.kill("SIGTERM");
    const run = await nudge;
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("SIGTERM: ending the session");
    const { manifest, state } = await onlySession(repo);
    expect(state).toBe("complete");
    expect(manifest.turns.map((t) => t.status)).toEqual(["complete", "interrupted"]);
  });

  it("claude dying mid-turn is reported, the turn kept as incomplete, and the next prompt resumes the conversation", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      // The Bash tool's shell kills its parent: claude dies mid-turn, for real.
      { tool: "Bash", input: { command: "echo partial > partial.txt; kill -9 $PPID", description: "crash" } },
      { text: "resumed fine" },
    ]);
    const run = await startNudge(
      repo,
      ["--allowed-tools", "Bash"],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      "first prompt\nsecond prompt\n",
    );
    // The session goes on, but a script must not read a turn cut short as success (QA).
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^error: turn 1 ended in an error \(shown above\)$/m);
    expect(run.stderr).toMatch(/claude exited \(signal SIGKILL\)/);
    expect(run.stderr).toContain("the next prompt resumes the conversation");
    expect(run.stdout).toContain("resumed fine");
    const { manifest } = await onlySession(repo);
    expect(manifest.turns.map((t) => t.status)).toEqual(["complete", "incomplete", "complete"]);
    // The code claude left behind is in the incomplete turn's snapshot.
    expect(manifest.turns[1]!.patch.filesChanged).toBe(1);
    // The second process resumed the same conversation: its request carries the first prompt.
    const resumed = api.mainLoopRequests().at(-1)!;
    expect(JSON.stringify(resumed.body.messages)).toContain("first prompt");
    expect(manifest.turns[2]!.claudeSessionId).toBe(manifest.turns[1]!.claudeSessionId);
  });

  it("kill -9 of nudge mid-turn leaves a bundle that loads; the next run recovers the turn and continues", async () => {
    const repo = await gitdir();
    const cfg = path.join(tempDir(), "cfg");
    api = await startScriptedApi([{ delayMs: 30_000, then: { text: "answer that nobody saw" } }]);
    const nudge = startNudge(repo, [], claudeEnv(api, cfg), "doomed prompt\n");
    await waitFor(() => api!.mainLoopRequests().length === 1);
    nudge.kill("SIGKILL");
    await nudge;
    const crashed = await onlySession(repo);
    expect(crashed.state).toBe("crashed");
    expect(crashed.manifest.turns).toHaveLength(1);
    // The orphaned claude is still running (its own process group survived nudge)...
    const orphan = JSON.parse(readFileSync(path.join(crashed.path, "lock"), "utf8")).claude.pid as number;
    expect(() => process.kill(orphan, 0)).not.toThrow();
    // ...and may write files any moment: no rewind under it.
    const rewind = await runNudge(["session", "rewind", crashed.id, "0", "--yes"], { cwd: repo });
    expect(rewind.exitCode).toBe(1);
    expect(rewind.stderr).toContain(
      `error: the claude of crashed session ${crashed.id} is still running (pid ${orphan})`,
    );
    expect(rewind.stderr).toContain(`hint: stop it (kill ${orphan}), or recover the session`);

    api.push({ text: "after recovery" });
    const again = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-c", "carry on"], {
      cwd: repo,
      env: claudeEnv(api, cfg),
    });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toMatch(/recovered turn 1 \((complete|incomplete)\)/);
    // ...until the recovery stops it, so nothing changes files behind the recording's back.
    expect(() => process.kill(orphan, 0)).toThrow();
    const { manifest, state } = await onlySession(repo);
    expect(state).toBe("complete");
    expect(manifest.turns.map((t) => t.prompt)).toEqual([null, "doomed prompt", "carry on"]);
    expect(manifest.turns[2]!.status).toBe("complete");
  });

  it("an API key the API rejects stops at once with a hint, without waiting out claude's retries", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { httpError: { status: 401, type: "authentication_error", message: "invalid x-api-key" } },
    ]);
    const started = Date.now();
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "hello"], {
      cwd: repo,
      env: claudeEnv(api, path.join(tempDir(), "cfg")),
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("error: claude could not authenticate with the API");
    expect(run.stderr).toContain("hint: set ANTHROPIC_API_KEY");
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const { manifest, state } = await onlySession(repo);
    expect(state).toBe("complete");
    expect(manifest.turns).toHaveLength(2);
  });

  it("a rate limit that outlasts claude's retries ends with a hint", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ httpError: { status: 429, type: "rate_limit_error", message: "slow down" } }]);
    const env = { ...claudeEnv(api, path.join(tempDir(), "cfg")), CLAUDE_CODE_MAX_RETRIES: "0" };
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "hello"], { cwd: repo, env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("error: the API is rate limiting claude");
    expect(run.stderr).toContain("hint: wait a minute");
  });

  it.each([
    [
      "claude is not found",
      ["claude", "run", "--claude-bin", "/nonexistent/claude", "hi"],
      /claude not found at \/nonexistent\/claude/,
    ],
    [
      "-r names no session",
      ["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", "zzzz", "hi"],
      /no session matches "zzzz"/,
    ],
    ["--max-turns is not a number", ["claude", "run", "--max-turns", "lots", "hi"], /invalid --max-turns/],
    ["the prompt is not quoted", ["claude", "run", "fix", "the", "test"], /too many arguments: the test/],
    ["an unknown session is shown", ["session", "show", "nope"], /no session matches "nope"/],
  ])("%s: one line, a hint, exit 1", async (_name, args, message) => {
    const repo = await gitdir();
    const run = await runNudge(args, { cwd: repo, env: { NUDGE_CLAUDE_BIN: "" } });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/^hint: /m);
    expect(run.stderr.split("\n").filter(Boolean)).toHaveLength(2);
  });

  it("outside a git repository: one line, a hint, exit 1", async () => {
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "hi"], { cwd: tempDir() });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^error: not a git repository/);
    expect(run.stderr).toMatch(/^hint: /m);
  });

  it("without git on PATH: one line, a hint, exit 1", async () => {
    const repo = await gitdir();
    const bin = tempDir(); // node alone: the PATH a machine without git would give
    symlinkSync(process.execPath, path.join(bin, "node"));
    // A command that needs git (listing sessions finds the repository without it, and needs no more).
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "hi"], { cwd: repo, env: { PATH: bin } });
    expect(run.stderr).toBe("error: git is not installed (or not on PATH)\nhint: install git, then run nudge again");
    expect(run.exitCode).toBe(1);
  });
});

describe("when the recording itself cannot be written", () => {
  it("a full disk stops claude and ends with a hint; the bundle stays loadable", async () => {
    const repo = await gitdir();
    const scratch = tempDir();
    api = await startScriptedApi([{ text: "first" }, { text: "second" }]);
    const env = claudeEnv(api, path.join(scratch, "cfg"));
    expect((await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "one"], { cwd: repo, env })).exitCode).toBe(0);
    const { path: bundle } = await onlySession(repo);
    // Every write to /dev/full fails with ENOSPC: the next run's stderr log is on a "full disk".
    rmSync(path.join(bundle, "claude-stderr.log"));
    symlinkSync("/dev/full", path.join(bundle, "claude-stderr.log"));
    const chatty = path.join(scratch, "chatty.sh");
    writeFileSync(chatty, `#!/usr/bin/env bash\necho "a warning on stderr" >&2\nexec "${CLAUDE_BIN}" "$@"\n`, {
      mode: 0o755,
    });
    const run = await runNudge(["claude", "run", "--claude-bin", chatty, "-c", "two"], { cwd: repo, env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/error: could not write the recording \(.*ENOSPC/);
    expect(run.stderr).toMatch(/^hint: free disk space/m);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const { state, manifest } = await onlySession(repo);
    expect(state).toBe("complete");
    expect(manifest.turns.map((t) => t.prompt)).toEqual([null, "one", "two"]);
  });
});
