/**
 * `nudge claude run --tui`: the real claude's own UI in a real terminal (tmux), against the
 * scripted API, recorded through its hooks as a person uses it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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

/** The one session being recorded has saved `n` turns past turn 0 (as a person, the test edits only after claude is done). */
async function savedTurns(repo: string, n: number): Promise<string> {
  return until(`turn ${n} saved`, async () => {
    const [id] = existsSync(sessions(repo)) ? readdirSync(sessions(repo)).filter((d) => !d.startsWith(".")) : [];
    if (!id) return undefined;
    try {
      return readManifestFile(path.join(sessions(repo), id)).turns.length > n ? id : undefined;
    } catch {
      return undefined;
    }
  });
}

describe("claude run --tui", () => {
  it("records two typed turns (a Write, a Bash change) with a hand edit between them kept apart; /exit ends nudge with claude's status; rewind to turn 1 restores the code", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "from claude\n" } },
      { text: "wrote a.txt" },
      { tool: "Bash", input: { command: "echo bash > b.txt", description: "write b" } },
      { text: "made b.txt" },
    ]);
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
    const term = Terminal.nudge(["claude", "run", "--tui", "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"], { cwd: repo, env });
    await term.ready();
    await term.type("write a");
    await term.waitFor(/wrote a\.txt/);
    await savedTurns(repo, 1);
    writeFileSync(path.join(repo, "README.md"), "# test\nhand edit\n");
    await term.type("make b");
    await term.waitFor(/made b\.txt/);
    await term.type("/exit");
    expect(await term.exited()).toBe(0);
    const screen = term.screen();
    const id = /recorded session (\w+): 2 turns/.exec(screen)?.[1];
    expect(id, screen).toBeDefined();
    const manifest = readManifestFile(path.join(sessions(repo), id!));
    expect(manifest.state).toBe("complete");
    expect(manifest.turns.map((t) => [t.n, t.prompt, t.status])).toEqual([
      [0, null, "complete"],
      [1, "write a", "complete"],
      [2, "make b", "complete"],
    ]);
    const [, one, two] = manifest.turns;
    expect(one!.edits).toBeNull();
    expect(two!.edits).not.toBeNull();
    const dir = path.join(sessions(repo), id!);
    expect(readFileSync(path.join(dir, two!.edits!.patch.file), "utf8")).toContain("+hand edit");
    const turnTwo = readFileSync(path.join(dir, two!.patch.file), "utf8");
    expect(turnTwo).toContain("b.txt");
    expect(turnTwo).not.toContain("hand edit");
    expect(one!.claudeSessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(one!.lastAssistantUuid).not.toBeNull();
    expect(two!.transcript).toBe(`claude/${one!.claudeSessionId}.jsonl`);

    // The conversation reads through the same session layer as any other session.
    const show = await runNudge(["session", "show", id!], { cwd: repo });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain("write a");
    expect(show.stdout).toContain("make b");
    const replay = await runNudge(["session", "replay", id!, "-v"], { cwd: repo });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stdout).toContain("wrote a.txt");
    expect(replay.stdout).toContain("echo bash > b.txt");
    expect(replay.stdout).toContain("made b.txt");

    const rewind = await runNudge(["session", "rewind", id!, "1", "--code-only", "--yes"], { cwd: repo });
    expect(rewind.exitCode, rewind.stderr).toBe(0);
    expect(readFileSync(path.join(repo, "a.txt"), "utf8")).toBe("from claude\n");
    expect(existsSync(path.join(repo, "b.txt"))).toBe(false);
    expect(readFileSync(path.join(repo, "README.md"), "utf8")).toBe("# test\n");
  }, 120_000);
});
