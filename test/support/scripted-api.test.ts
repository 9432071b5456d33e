// Proves the scripted API really drives the real claude binary: a scripted
// Write tool call must create the file on disk.
import { afterEach, expect, test } from "vitest";
import { execa } from "execa";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startScriptedApi, type ScriptedApi } from "./scripted-api.js";
import { CLAUDE_ARGS, CLAUDE_BIN, claudeEnv } from "./claude-env.js";

let api: ScriptedApi | undefined;
const tempDirs: string[] = [];

afterEach(async () => {
  await api?.close();
  api = undefined;
  await Promise.all(tempDirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

test("scripted Write step makes the real claude create a file", { timeout: 60_000 }, async () => {
  const cwd = await fs.mkdtemp(path.join(os.tmpdir(), "nudge-scripted-cwd-"));
  const configDir = await fs.mkdtemp(path.join(os.tmpdir(), "nudge-scripted-cfg-"));
  tempDirs.push(cwd, configDir);
  const target = path.join(cwd, "hello.txt");
  api = await startScriptedApi([
    { tool: "Write", input: { file_path: target, content: "hi from the script\n" } },
    { text: "Wrote hello.txt." },
  ]);

  // One prompt, then EOF: claude finishes the turn and exits on its own.
  const prompt = { type: "user", message: { role: "user", content: "Create hello.txt" } };
  const run = await execa(CLAUDE_BIN, CLAUDE_ARGS, {
    cwd,
    env: claudeEnv(api, configDir),
    input: JSON.stringify(prompt) + "\n",
    timeout: 50_000,
  });

  expect(await fs.readFile(target, "utf8")).toBe("hi from the script\n");
  const lines = run.stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  const results = lines.filter((l) => l.type === "result");
  expect(results).toHaveLength(1);
  expect(results[0].subtype).toBe("success");
  expect(results[0].result).toBe("Wrote hello.txt.");
  expect(api.remaining()).toBe(0);
  expect(api.mainLoopRequests()).toHaveLength(2);
});
