/**
 * A plain `claude -p` in a repository with `nudge hooks install --claude`: its one turn is saved
 * complete (the process ends right after the turn, so SessionEnd races the turn's end).
 */
import { execa } from "execa";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { until } from "../support/until.js";
import { existsSync, readdirSync, readFileSync } from "node:fs";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const sessions = (repo: string) => path.join(repo, ".git", "nudge", "sessions");
const ids = (repo: string) =>
  existsSync(sessions(repo)) ? readdirSync(sessions(repo)).filter((d) => !d.startsWith(".")) : [];

describe("claude -p under installed hooks", () => {
  it("records its turn complete, with its change, its conversation, claude's version and model, and its tokens instead of a cost", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    expect((await runNudge(["hooks", "install", "--claude"], { cwd: repo })).exitCode).toBe(0);
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "from claude\n" } },
      { text: "wrote a.txt" },
    ]);
    const env = claudeEnv(api, path.join(tempDir(), "cfg"));
    const run = await execa(CLAUDE_BIN, ["-p", "write a", "--permission-mode", "acceptEdits"], {
      cwd: repo,
      env,
      reject: false,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("wrote a.txt");
    const id = await until("a session", async () => ids(repo)[0]);
    const dir = path.join(sessions(repo), id);
    // claude has exited; the hooks' detached process saves the turn and closes the session: meanwhile
    // the session is being recorded, never "crashed" (which would also invite a recovery).
    const states: string[] = [];
    const manifest = await until("the session closed", async () => {
      const listed = await runNudge(["session", "list", "--json"], { cwd: repo });
      states.push(...JSON.parse(listed.stdout).map((s: { state: string }) => s.state));
      const m = readManifestFile(dir);
      return m.state === "complete" && !existsSync(path.join(dir, "lock")) ? m : undefined;
    });
    expect(states).not.toContain("crashed");
    expect(manifest.turns.map((t) => [t.n, t.prompt, t.status])).toEqual([
      [0, null, "complete"],
      [1, "write a", "complete"],
    ]);
    expect(readFileSync(path.join(dir, manifest.turns[1]!.patch.file), "utf8")).toContain("+from claude");
    const replay = await runNudge(["session", "replay", id], { cwd: repo });
    expect(replay.stdout).toContain("wrote a.txt");

    // claude's transcript names its version and model, and holds tokens but no per-turn cost: no made-up $0.
    const show = await runNudge(["session", "show", id], { cwd: repo });
    expect(show.stdout).toMatch(/^claude 2\.\d+\.\d+ · claude-[a-z0-9.-]+$/m);
    expect(show.stdout).toMatch(/^1 .* – \(\d+(\.\d)?k? tokens\)/m);
    expect(show.stdout).toMatch(/^total – \(\d+(\.\d)?k? tokens; claude's own UI reports no cost\)/m);
    const list = await runNudge(["session", "list"], { cwd: repo });
    expect(list.stdout).toContain(id);
    expect(list.stdout + show.stdout).not.toContain("$0.0000");
    expect(manifest.claude.version).toMatch(/^2\./);
    expect(manifest.turns[1]!.tokens!.input).toBeGreaterThan(0);

    // claude -p writes no turn duration line: the turn's end is the Stop hooks' summary it writes
    // instead, so the saver did not wait out its bound for a line that never comes.
    const log = path.join(repo, ".git", "nudge", "claude-hooks.log");
    expect(existsSync(log) ? readFileSync(log, "utf8") : "").not.toMatch(/no end of its turn/);
  }, 60_000);
});
