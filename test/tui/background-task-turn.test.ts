/**
 * A background subagent in claude's own UI under `nudge claude run --tui`: the turn that launches
 * it ends (Stop), the subagent writes a file after that, and claude answers the task's end in a
 * turn it starts by itself (a UserPromptSubmit whose prompt is the notification). That turn is
 * recorded as claude's, the subagent's file in it, not captured apart as the user's edits; the
 * same through the hooks `nudge hooks install --claude` writes (one short process per hook).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_TURN_PROMPT } from "../../src/claude/task-notification.js";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { routeByFirstUserText, startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { Terminal, tuiEnv } from "../support/tui.js";
import { until } from "../support/until.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const sessions = (repo: string) => path.join(repo, ".git", "nudge", "sessions");

/** The launching turn's script, and the subagent's on a route of its own (its requests race the main loop's). */
function backgroundAgent(repo: string, turnOneOver: Promise<unknown>): Promise<ScriptedApi> {
  return startScriptedApi(
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
    ],
    {
      route: routeByFirstUserText("SUBTASK", "sub"),
      routes: {
        sub: [
          // Once the launching turn is over.
          {
            after: turnOneOver,
            then: { tool: "Write", input: { file_path: path.join(repo, "sub.txt"), content: "from sub\n" } },
          },
          { text: "SUB DONE" },
        ],
      },
    },
  );
}

/** The one session's id once it has saved `n` turns past turn 0. */
function savedTurns(repo: string, n: number): Promise<string> {
  return until(`turn ${n} saved`, async () => {
    const [found] = existsSync(sessions(repo)) ? readdirSync(sessions(repo)).filter((d) => !d.startsWith(".")) : [];
    try {
      return found && readManifestFile(path.join(sessions(repo), found)).turns.length > n ? found : undefined;
    } catch {
      return undefined;
    }
  });
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Turn 2 is claude's own, the subagent's file in it, nothing captured apart as the user's edits. */
function expectClaudesTurn(repo: string, id: string): void {
  const dir = path.join(sessions(repo), id);
  const manifest = readManifestFile(dir);
  expect(manifest.turns.map((t) => [t.n, t.prompt, t.status])).toEqual([
    [0, null, "complete"],
    [1, "launch it", "complete"],
    [2, CLAUDE_TURN_PROMPT, "complete"],
  ]);
  const [, launch, claudes] = manifest.turns;
  expect(launch!.patch.filesChanged).toBe(0);
  expect(claudes!.edits).toBeNull();
  expect(readFileSync(path.join(dir, claudes!.patch.file), "utf8")).toContain("+from sub");
}

describe("a turn claude starts by itself when its background subagent ends", () => {
  it("is recorded as claude's under claude run --tui, with the subagent's file", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    const turnOne = deferred();
    api = await backgroundAgent(repo, turnOne.promise);
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
    const term = Terminal.nudge(
      ["claude", "run", "--tui", "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"],
      { cwd: repo, env },
    );
    await term.ready();
    await term.type("launch it");
    void savedTurns(repo, 1).then(turnOne.resolve, turnOne.resolve);
    await term.waitFor(/MAIN NOTIFIED/);
    const id = await savedTurns(repo, 2);
    await term.type("/exit");
    expect(await term.exited()).toBe(0);
    expectClaudesTurn(repo, id);
  }, 90_000);

  it("is recorded as claude's through the hooks nudge hooks install --claude writes, with the subagent's file", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    const installed = await runNudge(["hooks", "install", "--claude"], { cwd: repo });
    expect(installed.exitCode, installed.stderr).toBe(0);
    const turnOne = deferred();
    api = await backgroundAgent(repo, turnOne.promise);
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
    const term = Terminal.open([CLAUDE_BIN, "--permission-mode", "acceptEdits", "--allowedTools", "Bash"], {
      cwd: repo,
      env,
    });
    await term.ready();
    await term.type("launch it");
    void savedTurns(repo, 1).then(turnOne.resolve, turnOne.resolve);
    await term.waitFor(/MAIN NOTIFIED/);
    const id = await savedTurns(repo, 2);
    await term.type("/exit");
    expect(await term.exited()).toBe(0);
    expectClaudesTurn(repo, id);
  }, 90_000);
});
