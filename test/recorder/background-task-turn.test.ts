/**
 * A background subagent with the real claude under `nudge claude run`: claude answers the task's
 * end in a turn it starts by itself, after the turn that launched it. That turn is recorded as
 * claude's (the subagent's changes since the last turn in it); the user's next prompt waits for
 * it and captures none of the subagent's changes as the user's edits.
 */
import { execa } from "execa";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_TURN_PROMPT } from "../../src/claude/task-notification.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { routeByFirstUserText, startScriptedApi, type ScriptedApi, type ScriptStep } from "../support/scripted-api.js";
import { until } from "../support/until.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const LAUNCH: ScriptStep = {
  tool: "Agent",
  input: {
    description: "write sub",
    prompt: "SUBTASK: write sub.txt",
    subagent_type: "general-purpose",
    run_in_background: true,
  },
};

/** What nudge has said so far, as promises a script's step can wait for. */
interface Said {
  /** The launching turn is saved (so it is over). */
  turnOneSaved: Promise<unknown>;
  /** claude's stream told of the subagent's end (nudge shows it under the Agent call). */
  subagentDone: Promise<unknown>;
}

/**
 * "launch it", then "next" once claude has answered its subagent's end: the session's turns, and
 * the bundle's folder. The subagent's own requests take `sub` (they race the main loop's).
 */
async function launchThenNext(repo: string, steps: (said: Said) => { main: ScriptStep[]; sub: ScriptStep[] }) {
  let stdout = "";
  let stderr = "";
  const saying = (text: () => string, what: string) =>
    until(what, async () => (text().includes(what) ? true : undefined)).catch(() => undefined);
  const { main, sub } = steps({
    turnOneSaved: saying(() => stderr, "turn 1 saved"),
    subagentDone: saying(() => stderr + stdout, "subagent done"),
  });
  api = await startScriptedApi([LAUNCH, ...main, { text: "NEXT DONE" }], {
    route: routeByFirstUserText("SUBTASK", "sub"),
    routes: { sub },
  });
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
  run.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  run.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  run.stdin!.write("launch it\n");
  await until("claude's answer to its subagent's end", async () =>
    stdout.includes("MAIN NOTIFIED") ? true : undefined,
  );
  run.stdin!.end("next\n");
  const done = await run;
  expect(done.exitCode, done.stderr).toBe(0);
  // Each line in its place: claude's turn after the launching turn's changes, the next prompt's after claude's.
  const at = (line: string) => done.stderr.indexOf(line);
  const lines = [
    "turn 1 saved",
    "claude goes on by itself",
    "● turn 2 ·",
    "turn 2 saved",
    "● turn 3 ·",
    "turn 3 saved",
  ];
  expect(lines.map(at)).toEqual(lines.map(at).sort((a, b) => a - b));
  expect(lines.map(at)).not.toContain(-1);
  const id = /session (\w+):/.exec(done.stderr)![1]!;
  const dir = path.join(repo, ".git", "nudge", "sessions", id);
  const manifest = readManifestFile(dir);
  expect(manifest.turns.map((t) => [t.n, t.prompt, t.status])).toEqual([
    [0, null, "complete"],
    [1, "launch it", "complete"],
    [2, CLAUDE_TURN_PROMPT, "complete"],
    [3, "next", "complete"],
  ]);
  // The turn holds claude's answer, as a replay reads it.
  const replay = await runNudge(["session", "replay", id], { cwd: repo });
  expect(replay.exitCode, replay.stderr).toBe(0);
  expect(replay.stdout.indexOf("MAIN NOTIFIED")).toBeGreaterThan(replay.stdout.indexOf(CLAUDE_TURN_PROMPT));
  expect(replay.stdout.indexOf(CLAUDE_TURN_PROMPT)).toBeGreaterThan(replay.stdout.indexOf("MAIN LAUNCHED"));
  const [, launch, claudes, next] = manifest.turns;
  expect(claudes!.edits).toBeNull();
  expect(next!.edits).toBeNull();
  const patch = (turn: typeof launch) => readFileSync(path.join(dir, turn!.patch.file), "utf8");
  return { launch: patch(launch), claudes: patch(claudes) };
}

describe("a turn claude starts by itself when its background subagent ends", () => {
  it("after the launching turn: recorded as claude's, with the file the subagent wrote after that turn", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    const write = { tool: "Write", input: { file_path: path.join(repo, "sub.txt"), content: "from sub\n" } };
    const patches = await launchThenNext(repo, (said) => ({
      main: [{ text: "MAIN LAUNCHED" }, { text: "MAIN NOTIFIED" }],
      // Once the launching turn is over.
      sub: [{ after: said.turnOneSaved, then: write }, { text: "SUB DONE" }],
    }));
    expect(patches.launch).not.toContain("sub.txt");
    expect(patches.claudes).toContain("+from sub");
  }, 90_000);

  it("when the subagent ends during the launching turn: claude's turn right after its result is recorded too", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    const write = { tool: "Write", input: { file_path: path.join(repo, "sub.txt"), content: "from sub\n" } };
    const patches = await launchThenNext(repo, (said) => ({
      // The launching turn's answer comes once the subagent is done.
      main: [{ after: said.subagentDone, then: { text: "MAIN LAUNCHED" } }, { text: "MAIN NOTIFIED" }],
      sub: [write, { text: "SUB DONE" }],
    }));
    expect(patches.launch).toContain("+from sub");
    expect(patches.claudes).not.toContain("sub.txt");
  }, 90_000);
});
