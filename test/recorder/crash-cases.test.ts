/**
 * The ways recorded work or the user's files could be lost that a fault-injection campaign found
 * (issue "Crash safety"), each caused for real: snapshots pruned under a session, output after
 * claude's last result, Ctrl-C three times and Ctrl-\ during a tool call, claude killed while its
 * tools run or before it said anything, temp files and half-made session folders left by kills.
 */
import { execa } from "execa";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile, recordSession } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function start(repo: string, args: string[], env: Record<string, string>, input: string) {
  return execa(
    "node",
    [NUDGE_CLI, "claude", "run", "--permission-mode", "acceptEdits", "--allowed-tools", "Bash", ...args],
    {
      cwd: repo,
      env: { NO_COLOR: "1", ...env },
      input,
      reject: false,
      timeout: 60_000,
    },
  );
}

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("snapshots pruned from the repository", () => {
  it("`run -r` refuses with exit 1 and a hint before claude starts; nothing is recorded or changed", async () => {
    const repo = await gitdir();
    const recorded = await recordSession(
      repo,
      [{ tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "a\n" } }, { text: "ok" }],
      ["write a"],
    );
    try {
      await git(repo, "update-ref", "-d", `refs/nudge/sessions/${recorded.id}`);
      await git(repo, "reflog", "expire", "--expire=now", "--all");
      await git(repo, "gc", "-q", "--prune=now");
      const journal = readFileSync(path.join(recorded.dir, "turns.jsonl"));
      const requests = recorded.api.mainLoopRequests().length;
      const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", recorded.id, "more"], {
        cwd: repo,
        env: recorded.env,
      });
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(`^error: the last snapshot of session ${recorded.id} is gone from the repository$`, "m"),
      );
      expect(run.stderr).toMatch(/^hint: .*nothing was changed/m);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(readFileSync(path.join(recorded.dir, "turns.jsonl")).equals(journal)).toBe(true);
      expect(recorded.api.mainLoopRequests()).toHaveLength(requests);
      // A fork of it is refused the same way, before any worktree or session is made.
      const fork = await runNudge(["session", "fork", recorded.id, "1", "--worktree", path.join(tempDir(), "wt")], {
        cwd: repo,
      });
      expect(fork.exitCode).toBe(1);
      expect(JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout)).toHaveLength(1);
    } finally {
      await recorded.api.close();
    }
  });
});

describe("output after claude's last result", () => {
  it("makes no turn and never changes which claude session is resumed", async () => {
    const repo = await gitdir();
    const scratch = tempDir();
    const wrapper = path.join(scratch, "claude-then-garbage.sh");
    // A wrapper that prints after claude is done: a banner, and a line that looks like another session's result.
    writeFileSync(
      wrapper,
      `#!/usr/bin/env bash\n"${CLAUDE_BIN}" "$@"\nstatus=$?\necho "wrapper: bye"\necho '{"type":"result","subtype":"success","is_error":false,"session_id":"not-the-real-one"}'\nexit $status\n`,
    );
    chmodSync(wrapper, 0o755);
    api = await startScriptedApi([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const env = claudeEnv(api, path.join(scratch, "cfg"));
    for (const prompt of ["first", "second", "third"]) {
      const args = prompt === "first" ? ["--claude-bin", wrapper] : ["--claude-bin", wrapper, "-c"];
      const run = await start(repo, args, env, `${prompt}\n`);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/recovered turn/);
    }
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    const m = readManifestFile(session.path);
    expect(m.turns.map((t) => t.prompt)).toEqual([null, "first", "second", "third"]);
    expect(new Set(m.turns.slice(1).map((t) => t.claudeSessionId)).size).toBe(1);
    expect(JSON.stringify(api.mainLoopRequests().at(-1)!.body.messages)).toContain("first");
  });
});

describe("signals during a tool call", () => {
  it.each([
    ["SIGINT ×3", ["SIGINT", "SIGINT", "SIGINT"]],
    ["SIGQUIT (Ctrl-\\)", ["SIGQUIT"]],
  ])("%s: the session ends complete, and no claude is left running", async (_name, signals) => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "node -e 'setTimeout(() => {}, 30000)'", description: "slow" } },
      { text: "never" },
    ]);
    const nudge = start(
      repo,
      ["--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      "slow thing\n",
    );
    await waitFor(() => api!.mainLoopRequests().length === 1);
    await new Promise((r) => setTimeout(r, 500)); // the Bash tool is running
    const lock = path.join(repo, ".git", "nudge", "sessions");
    const id = (await execa("ls", [lock])).stdout.trim();
    const claudePid = JSON.parse(readFileSync(path.join(lock, id, "lock"), "utf8")).claude.pid as number;
    for (const signal of signals) {
      nudge.kill(signal as NodeJS.Signals);
      await new Promise((r) => setTimeout(r, 150));
    }
    const run = await nudge;
    expect([0, 1]).toContain(run.exitCode);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const m = readManifestFile(path.join(lock, id));
    expect(m.state).toBe("complete");
    expect(m.turns.map((t) => t.prompt)).toEqual([null, "slow thing"]);
    expect(existsSync(path.join(lock, id, "lock"))).toBe(false);
    expect(running(claudePid)).toBe(false);
  });
});

describe("claude killed", () => {
  it("stops the tools it started: nothing changes the files after the session ends", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      // A background writer, then the tool's shell kills claude.
      {
        tool: "Bash",
        input: {
          command: "(while true; do date +%s%N >> ticks.txt; sleep 0.05; done) & sleep 0.3; kill -9 $PPID",
          description: "writer",
        },
      },
      { text: "resumed" },
    ]);
    const run = await start(
      repo,
      ["--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      "start a writer\nthen this\n",
    );
    // The session goes on in a new claude; the turn cut short makes the exit 1 (a script must hear of it).
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^error: turn 1 ended in an error \(shown above\)$/m);
    const ticks = path.join(repo, "ticks.txt");
    const size = statSync(ticks).size;
    await new Promise((r) => setTimeout(r, 500));
    expect(statSync(ticks).size).toBe(size);
  });

  it("before its first output: the queued prompts still run, in a claude that resumes", async () => {
    const repo = await gitdir();
    const scratch = tempDir();
    const marker = path.join(scratch, "killed-once");
    // The first claude dies before writing anything (as if killed); later ones run normally.
    const wrapper = path.join(scratch, "dies-once.sh");
    writeFileSync(
      wrapper,
      `#!/usr/bin/env bash\nif [ ! -e "${marker}" ]; then touch "${marker}"; kill -9 $$; fi\nexec "${CLAUDE_BIN}" "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    api = await startScriptedApi([{ text: "answer one" }, { text: "answer two" }]);
    const run = await start(
      repo,
      ["--claude-bin", wrapper],
      claudeEnv(api, path.join(scratch, "cfg")),
      "first\nsecond\n",
    );
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    const turns = readManifestFile(session.path).turns;
    // The first prompt went to a claude that was gone, or (found gone first) to the next one.
    expect(turns.map((t) => t.prompt)).toEqual([null, "first", "second"]);
    expect(["complete", "incomplete"]).toContain(turns[1]!.status);
    // A prompt a dead claude never answered is a turn cut short: exit 1, the session kept going.
    expect(run.exitCode, run.stderr).toBe(turns[1]!.status === "incomplete" ? 1 : 0);
    expect(turns[2]!.status).toBe("complete");
    expect(run.stdout).toContain(turns[1]!.status === "complete" ? "answer two" : "answer one");
    expect(JSON.stringify(api.mainLoopRequests().at(-1)!.body.messages)).toContain("first");
  });
});

describe("what kills leave behind", () => {
  it("temp files of dead processes are swept and a session folder without a manifest is removed at the next run", async () => {
    const repo = await gitdir();
    const recorded = await recordSession(repo, [{ text: "one" }, { text: "two" }], ["first"]);
    try {
      const deadPid = 2 ** 22 - 3; // beyond pid_max on Linux: never a running process
      const temps = [
        path.join(recorded.dir, `.manifest.json.${deadPid}.0123abcd.tmp`),
        path.join(recorded.dir, "changes", `.turn-001.patch.${deadPid}.89abcdef.tmp`),
      ];
      for (const t of temps) writeFileSync(t, "x".repeat(1000));
      const halfMade = path.join(repo, ".git", "nudge", "sessions", "0000deadbeef");
      mkdirSync(halfMade);
      writeFileSync(
        path.join(halfMade, "lock"),
        JSON.stringify({
          host: (await import("node:os")).hostname(),
          owner: { pid: deadPid, started: null },
          claude: null,
        }),
      );
      const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", recorded.id, "second"], {
        cwd: repo,
        env: recorded.env,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      for (const t of temps) expect(existsSync(t), t).toBe(false);
      expect(existsSync(halfMade)).toBe(false);
      const list = await runNudge(["session", "list"], { cwd: repo });
      expect(list.stderr).toBe("");
    } finally {
      await recorded.api.close();
    }
  });
});
