import { execa } from "execa";
import path from "node:path";
import { CLAUDE_BIN, claudeEnv } from "../test/support/claude-env.js";
import { startScriptedApi } from "../test/support/scripted-api.js";
import { generateRepo, scratchDir } from "./repo.js";
import { CLI } from "./session.js";
const repo = await generateRepo({ files: 100 });
const line = "0123456789 the quick brown fox jumps over the lazy dog, a line of a big generated file\n";
const content = line.repeat(Math.ceil((50 * 1024 * 1024) / line.length));
const api = await startScriptedApi([
  { tool: "Write", input: { file_path: path.join(repo, "big.txt"), content } },
  { text: "wrote it" },
  { text: "second answer" },
]);
const run = await execa("node", [CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits"], {
  cwd: repo, env: { NO_COLOR: "1", ...claudeEnv(api, path.join(scratchDir("claude-config"), "claude")) },
  input: "write the big file\nsay more\n", reject: false, timeout: 600_000 });
await api.close();
console.log(repo, /session (\w+):/.exec(run.stderr)?.[1], run.exitCode);
