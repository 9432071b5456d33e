/** Record a real session (real claude, scripted API) in one call, for tests that need one to work on. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { ManifestHeaderSchema, type Manifest } from "../../src/store/manifest-schema.js";
import { foldJournal, parseJournal } from "../../src/store/turn-journal.js";
import { CLAUDE_BIN, claudeEnv } from "./claude-env.js";
import { tempDir } from "./gitdir.js";
import { runNudge } from "./run-nudge.js";
import { startScriptedApi, type ScriptStep, type ScriptedApi, type ScriptedApiOptions } from "./scripted-api.js";

export interface Recorded {
  id: string;
  dir: string;
  manifest: Manifest;
  api: ScriptedApi;
  /** Environment that points claude at `api` with this session's claude config dir. */
  env: Record<string, string>;
  stdout: string;
  stderr: string;
}

export async function recordSession(
  repo: string,
  steps: ScriptStep[],
  prompts: string[],
  options: ScriptedApiOptions = {},
): Promise<Recorded> {
  const api = await startScriptedApi(steps, options);
  const env = claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude"));
  const run = await runNudge(
    ["claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"],
    {
      cwd: repo,
      env,
      input: prompts.join("\n") + "\n",
    },
  );
  expect(run.exitCode, run.stderr).toBe(0);
  const id = /session (\w+):/.exec(run.stderr)![1]!;
  const dir = path.join(repo, ".git", "nudge", "sessions", id);
  return { id, dir, manifest: readManifestFile(dir), api, env, stdout: run.stdout, stderr: run.stderr };
}

/** A bundle's header and turn journal, read the way nudge reads them (strictly: a test fails on a bad file). */
export function readManifestFile(dir: string): Manifest {
  const header = ManifestHeaderSchema.parse(JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")));
  const journal = path.join(dir, "turns.jsonl");
  return { ...header, ...foldJournal(parseJournal(readFileSync(journal, "utf8"), journal)) };
}

/** `nudge claude run` with the real claude, edits accepted and Bash allowed, as the recording tests run it. */
export function runClaude(repo: string, args: string[], env: Record<string, string>, input = "") {
  return runNudge(
    [
      "claude",
      "run",
      "--claude-bin",
      CLAUDE_BIN,
      "--permission-mode",
      "acceptEdits",
      "--allowed-tools",
      "Bash",
      ...args,
    ],
    { cwd: repo, env, input },
  );
}
