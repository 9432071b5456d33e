/**
 * CLAUDE_CONFIG_DIR set but empty: the pinned claude then keeps its transcripts under its working
 * folder (`<cwd>/projects/…`), not ~/.claude. nudge must look there too, or a session's copy of
 * claude's transcript (what a conversation rewind, an export and a resume elsewhere need) is lost.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runClaude } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => api?.close());

it("keeps claude's transcript of a session run with CLAUDE_CONFIG_DIR set but empty, and resumes it", async () => {
  const repo = await gitdir();
  api = await startScriptedApi([
    { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "one\n" } },
    { text: "wrote it" },
    { text: "still here" },
  ]);
  // A home of its own: a wrong guess (~/.claude) finds nothing there.
  const env = { ...claudeEnv(api, ""), HOME: tempDir("nudge-home-") };
  const first = await runClaude(repo, [], env, "write one\n");
  expect(first.exitCode, first.stderr).toBe(0);
  const id = /session (\w+):/.exec(first.stderr)![1]!;
  expect(existsSync(path.join(repo, "projects")), "claude kept its transcript in its working folder").toBe(true);
  const copies = readdirSync(path.join(repo, ".git", "nudge", "sessions", id, "claude"));
  expect(copies.filter((f) => f.includes(".jsonl"))).toHaveLength(1);
  expect(first.stderr).not.toMatch(/transcript/i);

  const second = await runClaude(repo, ["-r", id], env, "and now?\n");
  expect(second.exitCode, second.stderr).toBe(0);
  const last = api.mainLoopRequests().at(-1)!.body as { messages: Array<{ content: unknown }> };
  expect(JSON.stringify(last.messages)).toContain("write one");
});

it("refuses a sandboxed loop then: claude's config would be the work tree, which the sandbox's private copy would hide", async () => {
  const repo = await gitdir();
  const run = await runNudge(["claude", "loop", "make it pass", "--until", "true", "--sandbox"], {
    cwd: repo,
    env: { CLAUDE_CONFIG_DIR: "" },
  });
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toContain("error: CLAUDE_CONFIG_DIR is set but empty");
  expect(run.stderr).toContain("unset CLAUDE_CONFIG_DIR, or set it to a folder");
});
