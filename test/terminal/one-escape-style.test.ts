/**
 * A file name with an ESC and a right-to-left override, made by claude's Write in a real session,
 * reads the same in every view: live with -v, show, diff (git's own patch headers, --stat) and
 * replay -v. One style: \x1b for a byte-sized control, \u202e for the rest. Not git's octal
 * (\033), not JSON's \u001b, never a doubled backslash (\\x1b); no raw control reaches the terminal.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runClaude } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

const NAME = "esc\u001b[31mred\u202etxt.md";
/** How the name must be shown, written out here, not taken from src. */
const SHOWN = "esc\\x1b[31mred\\u202etxt.md";
/** The other styles the name was seen in: git's octal, JSON's, and -v's doubled backslash. */
const OTHER_STYLES = ["\\033", "\\342\\200\\256", "\\u001b", "\\\\x1b", "\\\\u202e"];
const colour = { FORCE_COLOR: "1", NO_COLOR: "" };

/** Raw controls but nudge's own SGR colours, newlines and tabs. */
function rawControls(text: string): string[] {
  const withoutSgr = text.replace(/\u001b\[[0-9;]*m/g, "");
  return [...withoutSgr.matchAll(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b]/g)].map(
    (m) => JSON.stringify(m[0]),
  );
}

function expectOneStyle(label: string, output: string): void {
  expect(output, label).toContain(SHOWN);
  for (const other of OTHER_STYLES) expect(output, `${label} shows ${other}`).not.toContain(other);
  expect(rawControls(output), label).toEqual([]);
}

let api: ScriptedApi | undefined;
let repo: string;
let id: string;
let live: { stdout: string; stderr: string };

beforeAll(async () => {
  repo = await gitdir();
  api = await startScriptedApi([
    { tool: "Write", input: { file_path: path.join(repo, NAME), content: "hello\n" }, text: "writing" },
    { text: "written" },
  ]);
  const run = await runClaude(
    repo,
    ["-v"],
    { ...claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude")), ...colour },
    `write ${NAME}\n`,
  );
  expect(run.exitCode, run.stderr).toBe(0);
  id = /session (\w+):/.exec(run.stderr)![1]!;
  live = run;
}, 120_000);

afterAll(async () => {
  await api?.close();
});

describe("a file name with an ESC and U+202E is shown in one escaped form everywhere", () => {
  it("live, claude run -v: the tool line and its input (escaped once, not twice)", () => {
    expectOneStyle("claude run -v", live.stdout + live.stderr);
    expect(live.stdout + live.stderr).toContain(`"file_path": "${path.join(repo, SHOWN)}"`);
  });

  it("session replay -v", async () => {
    const run = await runNudge(["session", "replay", id, "-v"], { cwd: repo, env: colour });
    expect(run.exitCode, run.stderr).toBe(0);
    expectOneStyle("replay -v", run.stdout);
    expect(run.stdout).toContain(`"file_path": "${path.join(repo, SHOWN)}"`);
  });

  it("session diff: git's quoted names in the patch headers and --stat", async () => {
    const patch = await runNudge(["session", "diff", id, "1"], { cwd: repo, env: colour });
    expect(patch.exitCode, patch.stderr).toBe(0);
    expectOneStyle("diff", patch.stdout);
    expect(patch.stdout).toContain(`diff --git "a/${SHOWN}" "b/${SHOWN}"`);
    expect(patch.stdout).toContain(`+++ "b/${SHOWN}"`);
    const stat = await runNudge(["session", "diff", id, "1", "--stat"], { cwd: repo, env: colour });
    expectOneStyle("diff --stat", stat.stdout);
    expect(stat.stdout).toContain(`"${SHOWN}"`);
  });

  it("session show: the prompt that named it", async () => {
    const run = await runNudge(["session", "show", id], { cwd: repo, env: colour });
    expect(run.exitCode, run.stderr).toBe(0);
    expectOneStyle("show", run.stdout);
  });
});
