/**
 * A background subagent with the real claude under `nudge claude run`: the turn that launches it
 * ends, the subagent writes a file after that, and claude answers the task's end in a turn it
 * starts by itself. That turn is recorded as claude's, the file in it; the user's next prompt
 * waits for it and captures no edits of the subagent's as the user's.
 */
import { execa } from "execa";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { CLAUDE_TURN_PROMPT } from "../../src/claude/task-notification.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { routeByFirstUserText, startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { until } from "../support/until.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

it("records the turn claude starts by itself when its background subagent ends as claude's, with the subagent's file", async () => {
  const repo = await gitdir({ "README.md": "# test\n" });
  api = await startScriptedApi(
    [
      {
        tool: "Agent",
        input: {
          description: "write sub",
          prompt: "SUBTASK: write sub.txt",
          subagent_type: "general-purpose",
          run_in_background: true,
        },
      },
      { text: "MAIN LAUNCHED" },
      { text: "MAIN NOTIFIED" },
      { text: "NEXT DONE" },
    ],
    {
      route: routeByFirstUserText("SUBTASK", "sub"),
      routes: {
        sub: [
          // Well after the launching turn has ended.
          {
            delayMs: 2500,
            then: { tool: "Write", input: { file_path: path.join(repo, "sub.txt"), content: "from sub\n" } },
          },
          { text: "SUB DONE" },
        ],
      },
    },
  );
  const env = claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude"));
  const run = execa(
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
    { cwd: repo, env: { NO_COLOR: "1", ...env }, reject: false, timeout: 60_000 },
  );
  let stdout = "";
  run.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  run.stdin!.write("launch it\n");
  await until("claude's answer to its subagent's end", async () =>
    stdout.includes("MAIN NOTIFIED") ? true : undefined,
  );
  run.stdin!.end("next\n");
  const done = await run;
  expect(done.exitCode, done.stderr).toBe(0);
  expect(done.stderr).toContain("claude goes on by itself");

  const id = /session (\w+):/.exec(done.stderr)![1]!;
  const dir = path.join(repo, ".git", "nudge", "sessions", id);
  const manifest = readManifestFile(dir);
  expect(manifest.turns.map((t) => [t.n, t.prompt, t.status])).toEqual([
    [0, null, "complete"],
    [1, "launch it", "complete"],
    [2, CLAUDE_TURN_PROMPT, "complete"],
    [3, "next", "complete"],
  ]);
  const [, launch, claudes, next] = manifest.turns;
  expect(launch!.patch.filesChanged).toBe(0);
  expect(claudes!.edits).toBeNull();
  expect(readFileSync(path.join(dir, claudes!.patch.file), "utf8")).toContain("+from sub");
  expect(claudes!.result?.isError).toBe(false);
  // The turn holds claude's answer, as a replay reads it.
  const replay = await runNudge(["session", "replay", id], { cwd: repo });
  expect(replay.exitCode, replay.stderr).toBe(0);
  expect(replay.stdout.indexOf("MAIN NOTIFIED")).toBeGreaterThan(replay.stdout.indexOf(CLAUDE_TURN_PROMPT));
  expect(replay.stdout.indexOf(CLAUDE_TURN_PROMPT)).toBeGreaterThan(replay.stdout.indexOf("MAIN LAUNCHED"));
  expect(next!.edits).toBeNull();
  expect(existsSync(path.join(repo, "sub.txt"))).toBe(true);
}, 90_000);
