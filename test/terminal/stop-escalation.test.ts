/**
 * Stopping claude always works: Ctrl-C twice sends SIGTERM, and a claude that does not go (here
 * stopped with SIGSTOP, so SIGTERM stays pending) is killed after a grace period; the turn reads
 * interrupted, as the user asked (issue 15, item 8). Real claude, scripted API, real pty.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { readManifestFile } from "../support/record.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
let stopped: number | undefined;
afterEach(async () => {
  // Never leave a stopped process behind, whatever failed.
  if (stopped)
    for (const signal of ["SIGKILL", "SIGCONT"] as const)
      try {
        process.kill(stopped, signal);
      } catch {
        /* gone */
      }
  stopped = undefined;
  await api?.close();
  api = undefined;
});

describe("stopping claude", () => {
  it("a claude stopped with SIGSTOP: Ctrl-C twice ends it (SIGTERM, then SIGKILL), the turn is interrupted, and the session goes on", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ delayMs: 120_000, then: { text: "never seen" } }, { text: "AFTER THE STOP" }]);
    const cfg = path.join(tempDir(), "cfg");
    const t = inTerminal(repo, ["claude", "run", "--claude-bin", CLAUDE_BIN], claudeEnv(api, cfg));
    await t.waitFor("› ");
    t.type("a long task\r");
    for (let i = 0; i < 800 && api.mainLoopRequests().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(api.mainLoopRequests()).toHaveLength(1);
    // Stopped only once claude has written the prompt to its transcript: a claude stopped before
    // that (a loaded machine) leaves nothing for the next claude to resume.
    const transcripts = () =>
      readdirSync(path.join(cfg, "projects"), { recursive: true }).filter((f) => String(f).endsWith(".jsonl"));
    for (let i = 0; i < 800 && (!existsSync(path.join(cfg, "projects")) || transcripts().length === 0); i++)
      await new Promise((r) => setTimeout(r, 25));
    const sessions = path.join(repo, ".git", "nudge", "sessions");
    const dir = path.join(sessions, readdirSync(sessions)[0]!);
    const lock = JSON.parse(readFileSync(path.join(dir, "lock"), "utf8")) as { claude: { pid: number } };
    stopped = lock.claude.pid;
    process.kill(stopped, "SIGSTOP");
    t.type("\u0003");
    await t.waitFor("interrupting the turn");
    t.type("\u0003");
    await t.waitFor("■ stopping claude");
    await t.waitFor(/turn 1 · interrupted[^]*turn 1 saved/);
    // A new claude resumes the conversation.
    t.type("go on\r");
    await t.waitFor("AFTER THE STOP");
    await t.waitFor(/turn 2 · success[^]*turn 2 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    const manifest = readManifestFile(dir);
    expect(manifest.turns.map((x) => [x.prompt, x.status])).toEqual([
      [null, "complete"],
      ["a long task", "interrupted"],
      ["go on", "complete"],
    ]);
  });
});
