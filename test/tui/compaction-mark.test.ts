/**
 * A /compact typed in claude's own UI (a plain claude under installed hooks, and under
 * `nudge claude run --tui`): no prompt hook, no Stop; the compaction's line in claude's transcript
 * marks the turn that holds it, in session show and replay.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { Terminal, tuiEnv } from "../support/tui.js";
import { until } from "../support/until.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const sessions = (repo: string) => path.join(repo, ".git", "nudge", "sessions");

async function compactIn(term: Terminal): Promise<void> {
  await term.ready();
  await term.type("hello");
  await term.waitFor(/first answer/);
  await term.type("/compact");
  await term.waitFor(/[Cc]ompacted/);
  await term.type("go on");
  await term.waitFor(/after compact/);
  await term.type("/exit");
  expect(await term.exited()).toBe(0);
}

describe("claude's own UI's /compact", () => {
  for (const frontend of ["installed hooks", "claude run --tui"] as const) {
    it(`is marked on the turn after it, with what started it (${frontend})`, async () => {
      const repo = await gitdir({ "README.md": "# test\n" });
      // A /compact takes two of claude's main-loop requests here (measured on 2.1.329).
      const summary = { text: "the summary" };
      api = await startScriptedApi([{ text: "first answer" }, summary, summary, { text: "after compact" }]);
      const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
      if (frontend === "installed hooks") {
        expect((await runNudge(["hooks", "install", "--claude"], { cwd: repo })).exitCode).toBe(0);
        await compactIn(Terminal.open([CLAUDE_BIN], { cwd: repo, env }));
      } else await compactIn(Terminal.nudge(["claude", "run", "--tui"], { cwd: repo, env }));
      const m = await until("the session closed", async () => {
        const ids = existsSync(sessions(repo)) ? readdirSync(sessions(repo)) : [];
        const found = ids.length === 1 ? readManifestFile(path.join(sessions(repo), ids[0]!)) : null;
        return found?.state === "complete" && found.turns.length === 3 ? found : undefined;
      });
      expect(m.turns.map((t) => [t.prompt, t.compaction?.trigger ?? null])).toEqual([
        [null, null],
        ["hello", null],
        ["go on", "manual"],
      ]);
      const show = await runNudge(["session", "show", m.id], { cwd: repo });
      expect(show.stdout).toMatch(/^2 +go on .*compacted here \(manual, \d+ → \d+ tokens\)/m);
      const replay = await runNudge(["session", "replay", m.id], { cwd: repo });
      expect(replay.stdout).toMatch(/compacted here \(manual, \d+ → \d+ tokens\)/);
    }, 120_000);
  }
});
