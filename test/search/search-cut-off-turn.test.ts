/**
 * A nudge killed between a turn's record (in the turn journal) and the session's header: the turn
 * is saved (`session show` lists it), so the search finds it too, though the index had already
 * seen the session as of the turn before (held at the second turn's snapshot, a search indexes it).
 * (after-turn-record is reached first for turn 0, the starting state: @3 is turn 2's record.)
 * `session show` and `session list` count that turn too: the journal is the truth, the header a cache.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runClaude } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { until } from "../support/until.js";

let api: ScriptedApi | undefined;
afterAll(() => api?.close());

describe("a turn recorded just before a kill -9", () => {
  it("is found by the next search, with and without --session, though the index saw the session before it", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "The first answer." }, { text: "The quetzal answer." }]);
    const release = path.join(tempDir(), "release");
    const env = {
      ...claudeEnv(api, path.join(tempDir(), "cfg")),
      NUDGE_FAULT: "after-snapshot:hold@2,after-turn-record:kill@3",
      NUDGE_FAULT_RELEASE: release,
    };
    const run = runClaude(repo, [], env, "first question\nsecond question\n");

    const sessions = path.join(repo, ".git", "nudge", "sessions");
    // The first turn saved, header and all; the second holds at its snapshot, before its record.
    const id = await until("the first turn's header", async () => {
      try {
        const [name] = readdirSync(sessions);
        const header = JSON.parse(readFileSync(path.join(sessions, name!, "manifest.json"), "utf8"));
        return header.summary.turns === 1 ? (name as string) : undefined;
      } catch {
        return undefined;
      }
    });
    const before = await runNudge(["session", "search", "first", "--json"], { cwd: repo });
    expect(before.exitCode, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout).map((h: { turn: number }) => h.turn)).toContain(1);
    writeFileSync(release, "");
    expect((await run).signal).toBe("SIGKILL");

    const shown = await runNudge(["session", "show", id], { cwd: repo });
    expect(shown.stdout).toMatch(/^2 +second question/m);
    // The header, a cache, still counts one turn: every count follows the journal, which holds two.
    expect(JSON.parse(readFileSync(path.join(sessions, id, "manifest.json"), "utf8")).summary.turns).toBe(1);
    expect(shown.stdout).toMatch(/total .*\b2 turns\b/);
    const listed = await runNudge(["session", "list", "--json"], { cwd: repo });
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).find((s: { id: string }) => s.id === id)).toMatchObject({
      turns: 2,
      lastPrompt: "second question",
    });
    const table = await runNudge(["session", "list"], { cwd: repo });
    expect(table.stdout.split("\n").find((l) => l.startsWith(id.slice(0, 8)))).toMatch(/\s2\s/);
    for (const args of [[], ["--session", id]]) {
      const found = await runNudge(["session", "search", "quetzal", "--json", ...args], { cwd: repo });
      expect(found.exitCode, found.stderr).toBe(0);
      expect(
        JSON.parse(found.stdout).map((h: { session: string; turn: number }) => [h.session, h.turn]),
      ).toContainEqual([id, 2]);
    }
  }, 120_000);
});
