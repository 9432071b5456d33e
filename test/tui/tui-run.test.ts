/**
 * `nudge claude run --tui`: the real claude's own UI in a real terminal (tmux), against the
 * scripted API, recorded through its hooks as a person uses it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitdir, tempDir, writeFiles } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
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
  it("records two typed turns (a Write, a Bash change) with a hand edit between them kept apart; /exit ends nudge with claude's status; rewind to turn 1 restores the code; --tui -r goes on from turn 1", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "from claude\n" } },
      { text: "wrote a.txt" },
      { tool: "Bash", input: { command: "echo bash > b.txt", description: "write b" } },
      { text: "made b.txt" },
      { text: "going on from turn 1" },
    ]);
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
    const term = Terminal.nudge(
      ["claude", "run", "--tui", "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"],
      { cwd: repo, env },
    );
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
    // claude's own resume line names the hooks file nudge removed: nudge's last says how to go on.
    const claudeId = readManifestFile(path.join(sessions(repo), id!)).turns[2]!.claudeSessionId!;
    const words = (text: string) => text.replace(/\s+/g, ""); // the terminal wraps the long line anywhere
    expect(words(screen)).toContain(
      words(`go on recorded: nudge claude run --tui -r ${id} (unrecorded: claude --resume ${claudeId})`),
    );
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

    const search = await runNudge(["session", "search", "made", "b.txt", "--json"], { cwd: repo });
    expect(search.exitCode, search.stderr).toBe(0);
    expect(search.stdout).toContain(id!);
    const html = path.join(tempDir(), "page.html");
    const exported = await runNudge(["session", "export", id!, "--html", "-o", html], { cwd: repo });
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(readFileSync(html, "utf8")).toContain("made b.txt");

    const rewind = await runNudge(["session", "rewind", id!, "1", "--yes"], { cwd: repo });
    expect(rewind.exitCode, rewind.stderr).toBe(0);
    expect(readFileSync(path.join(repo, "a.txt"), "utf8")).toBe("from claude\n");
    expect(existsSync(path.join(repo, "b.txt"))).toBe(false);
    expect(readFileSync(path.join(repo, "README.md"), "utf8")).toBe("# test\n");

    // Resumed in claude's UI: the conversation is turn 1's, not turn 2's.
    const again = Terminal.nudge(["claude", "run", "--tui", "-r", id!, "--permission-mode", "acceptEdits"], {
      cwd: repo,
      env,
    });
    await again.ready();
    await again.type("go on");
    await again.waitFor(/going on from turn 1/);
    await again.type("/exit");
    expect(await again.exited()).toBe(0);
    const request = JSON.stringify(api.mainLoopRequests().at(-1)!.body.messages);
    expect(request).toContain("write a");
    expect(request).toContain("wrote a.txt");
    expect(request).toContain("go on");
    expect(request).not.toContain("make b");
    const fork = /recorded session (\w+): 2 turns/.exec(again.screen())?.[1];
    expect(fork, again.screen()).toBeDefined();
    const forked = readManifestFile(path.join(sessions(repo), fork!));
    expect(forked.turns.map((t) => t.prompt)).toEqual([null, "write a", "go on"]);
  }, 120_000);

  it("a nudge killed (kill -9) mid-turn: claude is not held by its hooks, the finished turn is kept, and the next start records the rest from claude's transcript", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "one\n" } },
      { text: "turn one done" },
      { after: held, then: { tool: "Bash", input: { command: "echo two > b.txt", description: "write b" } } },
      { text: "turn two done" },
      { tool: "Bash", input: { command: "echo three > c.txt", description: "write c" } },
      { text: "turn three done" },
    ]);
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
    const term = Terminal.nudge(
      ["claude", "run", "--tui", "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"],
      { cwd: repo, env },
    );
    await term.ready();
    await term.type("first");
    await term.waitFor(/turn one done/);
    const id = await savedTurns(repo, 1);
    await term.type("second");
    await until("turn 2 asked", async () => (api!.mainLoopRequests().length >= 3 ? true : undefined));
    const nudgePid = term.nudgePid();
    const claudePids = execFileSync("ps", ["-o", "pid=", "--ppid", String(nudgePid)])
      .toString()
      .trim()
      .split(/\s+/)
      .map(Number);
    process.kill(nudgePid, "SIGKILL");
    release();
    // Every hook of claude's now fails to connect: each turn goes on at once.
    const started = Date.now();
    await term.waitFor(/turn two done/);
    await term.type("third");
    await term.waitFor(/turn three done/);
    expect(Date.now() - started).toBeLessThan(20_000);
    await term.type("/exit");
    // The shell's "[exit 137]" was written when nudge died, under claude's screen, which draws over
    // it: wait for claude itself to end instead.
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive(nudgePid)).toBe(false);
    await until("claude ended", async () => (claudePids.some(alive) ? undefined : true));
    expect(readManifestFile(path.join(sessions(repo), id)).turns.map((t) => t.prompt)).toEqual([null, "first"]);

    const next = Terminal.nudge(["claude", "run", "--tui", "-c"], { cwd: repo, env });
    await next.ready();
    await next.type("/exit");
    expect(await next.exited()).toBe(0);
    expect(next.screen()).toContain("recovered turn 2");
    const manifest = readManifestFile(path.join(sessions(repo), id));
    expect(manifest.turns.map((t) => [t.prompt, t.status])).toEqual([
      [null, "complete"],
      ["first", "complete"],
      ["second", "incomplete"],
    ]);
    const replay = await runNudge(["session", "replay", id], { cwd: repo });
    expect(replay.stdout).toContain("turn one done");
    expect(replay.stdout).toContain("turn two done");
    expect(replay.stdout).toContain("turn three done");
    const patch = readFileSync(path.join(sessions(repo), id, manifest.turns[2]!.patch.file), "utf8");
    expect(patch).toContain("b.txt");
    expect(patch).toContain("c.txt");
  }, 120_000);

  it("Ctrl-Z stops claude and nudge together and fg brings both back, as with claude alone; -c goes on with no turn made of claude's exit; a claude that will not start ends nudge with its status and keeps no session", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    api = await startScriptedApi([{ text: "after fg" }, { text: "second answer" }]);
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
    const term = Terminal.shell({ cwd: repo, env });
    await term.type(`node ${NUDGE_CLI} claude run --tui`);
    await term.ready();
    await term.keys("C-z");
    await term.waitFor(/Stopped/);
    await term.type("fg");
    await term.ready();
    await term.type("hello");
    await term.waitFor(/after fg/);
    await savedTurns(repo, 1);
    await term.type("/exit");
    await term.waitFor(/recorded session \w+: 1 turn/);
    await term.type("echo status=$?");
    await term.waitFor(/status=0/);

    // Continued: what claude wrote after its last turn and at /exit is no turn of its own.
    const id = await savedTurns(repo, 1);
    const next = Terminal.nudge(["claude", "run", "--tui", "-c"], { cwd: repo, env });
    await next.ready();
    await next.type("again");
    await next.waitFor(/second answer/);
    await next.type("/exit");
    expect(await next.exited()).toBe(0);
    expect(next.screen()).not.toContain("warning");
    expect(readManifestFile(path.join(sessions(repo), id)).turns.map((t) => t.prompt)).toEqual([
      null,
      "hello",
      "again",
    ]);

    const bad = Terminal.nudge(["claude", "run", "--tui", "--", "--no-such-flag"], { cwd: repo, env });
    expect(await bad.exited()).toBe(1);
    expect(bad.screen()).toContain("--no-such-flag");
    expect(readdirSync(sessions(repo))).toHaveLength(1);
  }, 120_000);

  it("the project's rules answer claude's own UI through the same hooks: a denied command never runs and claude is told why; a note follows the result", async () => {
    const repo = await gitdir({ "keep.txt": "precious\n" });
    writeFiles(repo, {
      ".nudge/rules.yaml": `version: 1
rules:
  - id: no-rm
    match: { tool: Bash, command: '\\brm\\b' }
    action: deny
    message: Never delete files with rm here.
  - id: pnpm-only
    match: { tool: Bash, command: '\\bnpm\\b' }
    action: note
    message: This repository uses pnpm.
`,
    });
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "rm keep.txt", description: "delete" } },
      { tool: "Bash", input: { command: "echo npm > used-npm.txt", description: "npm" } },
      { text: "all done" },
    ]);
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
    const term = Terminal.nudge(
      ["claude", "run", "--tui", "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"],
      { cwd: repo, env },
    );
    await term.ready();
    await term.type("clean up");
    await term.waitFor(/all done/);
    await term.type("/exit");
    expect(await term.exited()).toBe(0);
    expect(readFileSync(path.join(repo, "keep.txt"), "utf8")).toBe("precious\n");
    expect(readFileSync(path.join(repo, "used-npm.txt"), "utf8")).toBe("npm\n");
    const requests = api.mainLoopRequests().map((r) => JSON.stringify(r.body.messages));
    expect(requests[1]).toContain("Never delete files with rm here.");
    expect(requests[2]).toContain("This repository uses pnpm.");
  }, 120_000);
});
