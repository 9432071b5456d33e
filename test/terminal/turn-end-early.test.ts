/**
 * Issue 24: the end-of-turn line (outcome, time, cost) shows the moment claude's result is in,
 * whatever the turn's save costs (its snapshot commit and patch take ~1.6 s at 100k files); what
 * the turn changed follows on a line of its own once the turn is saved. The save is held here at
 * its fault point until the test releases it, so the order is proven without a clock. Real
 * claude, scripted API, the built CLI.
 */
import { execa } from "execa";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function until(ok: () => boolean, what: () => string): Promise<void> {
  for (let i = 0; i < 1600 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!ok()) throw new Error(`never happened; so far:\n${what()}`);
}

describe("the end of a turn, live", () => {
  it("the end line is on screen while the turn's save is still held; the changes line comes once it is saved", async () => {
    const repo = await gitdir();
    const release = path.join(tempDir(), "release-the-save");
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "one\n" } },
      { text: "Wrote it." },
    ]);
    const child = execa(
      "node",
      [NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits", "write a.txt"],
      {
        cwd: repo,
        env: {
          ...claudeEnv(api, path.join(tempDir(), "cfg")),
          NO_COLOR: "1",
          NUDGE_FAULT: "after-snapshot:hold",
          NUDGE_FAULT_RELEASE: release,
        },
        input: "",
        reject: false,
        timeout: 90_000,
      },
    );
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    try {
      await until(
        () => /● turn 1 · /.test(stderr),
        () => stderr,
      );
      // Shown with claude's outcome, time and cost, before anything of the save is known.
      expect(stderr).toMatch(/^● turn 1 · success · \S+ · \$\d+\.\d{4}$/m);
      expect(stderr).not.toMatch(/turn 1 saved/);
      // The turn's record is indeed not written yet: the session holds turn 0 alone, turn 1 unsaved.
      const listed = await runNudge(["session", "list", "--json"], { cwd: repo });
      expect(listed.exitCode, listed.stderr).toBe(0);
      const held = readManifestFile(JSON.parse(listed.stdout)[0].path);
      expect(held.turns.map((t) => t.n)).toEqual([0]);
      expect(held.unsaved.map((u) => u.n)).toEqual([1]);
    } finally {
      writeFileSync(release, "");
    }
    const run = await child;
    expect(run.exitCode, stderr).toBe(0);
    // Saved: what it changed, under the end line, naming its turn.
    const lines = stderr.split("\n");
    const end = lines.findIndex((l) => l.startsWith("● turn 1 · "));
    expect(lines[end + 1], stderr).toBe("  ⎿ turn 1 saved · 1 file +1 -0");
  });
});
