/**
 * `nudge claude run` with stdin piped: nobody can answer claude's permission questions. In the
 * default permission mode a Write is refused, the user is told once which flag would allow it,
 * claude is told why, and the session goes on. The permission flags still reach claude.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("without a terminal", () => {
  it("a Write in the default mode is refused with one notice naming --permission-mode acceptEdits; claude is told, the session goes on", async () => {
    const repo = await gitdir();
    const write = (name: string) => ({ tool: "Write", input: { file_path: path.join(repo, name), content: "x\n" } });
    api = await startScriptedApi([
      write("a.txt"),
      { text: "I could not write a.txt" },
      write("b.txt"),
      { text: "nor b.txt" },
    ]);
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: claudeEnv(api, path.join(tempDir(), "cfg")),
      input: "write a.txt\nwrite b.txt\n",
    });
    expect(run.exitCode, run.stderr).toBe(0);
    // (The decision lines, `✗ denied Write(…)`, are on stderr too: one per call, not notices.)
    const notices = run.stderr.split("\n").filter((l) => l.startsWith("! ") && l.includes("was refused"));
    expect(notices).toEqual([
      "! Write was refused: nobody can answer a permission question without a terminal; allow it with --permission-mode acceptEdits",
    ]);
    expect(existsSync(path.join(repo, "a.txt"))).toBe(false);
    expect(existsSync(path.join(repo, "b.txt"))).toBe(false);
    const [, afterFirst, , afterSecond] = api.mainLoopRequests().map((r) => JSON.stringify(r.body.messages));
    for (const request of [afterFirst, afterSecond])
      expect(request).toContain(
        "nobody is at a terminal to allow it (the user can rerun with --permission-mode acceptEdits)",
      );
    expect(run.stdout).toContain("I could not write a.txt");
    expect(run.stdout).toContain("nor b.txt");
    const id = /session (\w+):/.exec(run.stderr)![1]!;
    const manifest = readManifestFile(path.join(repo, ".git", "nudge", "sessions", id));
    expect(manifest.turns.map((t) => [t.prompt, t.status])).toEqual([
      [null, "complete"],
      ["write a.txt", "complete"],
      ["write b.txt", "complete"],
    ]);
  });

  it("--disallowed-tools and --allowed-tools reach claude: a disallowed tool is not offered to the model, an allowed one runs unasked", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "echo ran > ran.txt", description: "run" } },
      { text: "done" },
    ]);
    const run = await runNudge(
      ["claude", "run", "--claude-bin", CLAUDE_BIN, "--disallowed-tools", "Edit", "--allowed-tools", "Bash"],
      {
        cwd: repo,
        env: claudeEnv(api, path.join(tempDir(), "cfg")),
        input: "run it\n",
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const tools = (api.mainLoopRequests()[0]!.body.tools as Array<{ name: string }>).map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["Bash", "Write", "Read"]));
    expect(tools).not.toContain("Edit");
    expect(existsSync(path.join(repo, "ran.txt"))).toBe(true);
    expect(run.stderr).not.toContain("was refused");
  });
});
