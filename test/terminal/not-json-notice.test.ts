/**
 * A line claude writes that is not JSON is nudge's notice, not claude's words: on stderr both live
 * (`nudge claude run`, real claude binary behind a wrapper that prints a stray line first) and in
 * `nudge session replay` of that same recording, so stdout stays the conversation alone.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("a line that is not JSON", () => {
  it("is warned about on stderr, never stdout, in the live run and in its replay", async () => {
    const repo = await gitdir();
    const scratch = tempDir();
    const noisy = path.join(scratch, "noisy-claude.sh");
    writeFileSync(noisy, `#!/usr/bin/env bash\necho 'Debugger listening on ws://x'\nexec "${CLAUDE_BIN}" "$@"\n`, {
      mode: 0o755,
    });
    api = await startScriptedApi([{ text: "hello back" }]);

    const live = await runNudge(["claude", "run", "--claude-bin", noisy, "hello"], {
      cwd: repo,
      env: claudeEnv(api, path.join(scratch, "cfg")),
    });
    expect(live.exitCode, live.stderr).toBe(0);
    expect(live.stdout).toContain("hello back");
    expect(live.stdout).not.toContain("not JSON");
    // Once, from the recorder, with the line number: not a second time from the renderer.
    expect(live.stderr).toMatch(/^! claude wrote a line that is not JSON \(line 1\); kept as is$/m);
    expect(live.stderr).not.toContain("! not JSON:");

    const id = /session (\w+):/.exec(live.stderr)![1]!;
    const replay = await runNudge(["session", "replay", id], { cwd: repo });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stdout).toContain("hello back");
    expect(replay.stdout).not.toContain("not JSON");
    expect(replay.stderr).toBe("! not JSON: Debugger listening on ws://x");
  });
});
