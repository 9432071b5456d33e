/**
 * `nudge hooks install --claude`: a plain claude (its own UI, in a real terminal, against the
 * scripted API), nudge not in front, is recorded through the hooks written in its settings.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { gitdir, tempDir, writeFiles } from "../support/gitdir.js";
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
const ids = (repo: string) =>
  existsSync(sessions(repo)) ? readdirSync(sessions(repo)).filter((d) => !d.startsWith(".")) : [];

/** The turns saved past turn 0 of session `id`, once there are `n`. */
async function savedTurns(repo: string, id: string, n: number) {
  return until(`turn ${n} saved`, async () => {
    try {
      const m = readManifestFile(path.join(sessions(repo), id));
      return m.turns.length > n ? m : undefined;
    } catch {
      return undefined;
    }
  });
}

describe("nudge hooks install --claude", () => {
  it("a plain claude started in a subfolder is recorded into the repository's store: its turns, its code, its conversation; uninstall puts the settings file back byte for byte", async () => {
    const repo = await gitdir({ "README.md": "# test\n", "sub/keep.txt": "x\n" });
    // The user's own local settings, oddly formatted: kept byte for byte, and restored so.
    const own = '{"permissions":   {"allow": ["Bash(ls:*)"]},\n\n\t"model" : "sonnet"   }\n';
    writeFiles(repo, { ".claude/settings.local.json": own });
    const installed = await runNudge(["hooks", "install", "--claude"], { cwd: repo });
    expect(installed.exitCode, installed.stderr).toBe(0);
    const settings = readFileSync(path.join(repo, ".claude/settings.local.json"), "utf8");
    expect(settings).toContain(own.slice(1)); // the user's bytes, after nudge's inserted "hooks"
    expect(JSON.parse(settings).model).toBe("sonnet");
    const status = await runNudge(["session", "list"], { cwd: repo }); // nothing recorded yet
    expect(status.exitCode).toBe(0);

    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "sub", "a.txt"), content: "from claude\n" } },
      { text: "wrote a.txt" },
      { tool: "Bash", input: { command: "echo bash > b.txt", description: "write b" } },
      { text: "made b.txt" },
    ]);
    const cwd = path.join(repo, "sub");
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), cwd);
    const term = Terminal.open([CLAUDE_BIN, "--permission-mode", "acceptEdits", "--allowedTools", "Bash"], {
      cwd,
      env,
    });
    await term.ready();
    await term.type("write a");
    await term.waitFor(/wrote a\.txt/);
    const id = await until("a session", async () => ids(repo)[0]);
    await savedTurns(repo, id, 1);
    // claude still open, its turn's end done: the session is being recorded, so nothing rewinds it under claude.
    const bundle = path.join(sessions(repo), id);
    await until("the turn's end done", async () =>
      !existsSync(path.join(bundle, "claude-ui-stop.json")) && !existsSync(path.join(bundle, "hook.lock"))
        ? true
        : undefined,
    );
    const live = await runNudge(["session", "list", "--json"], { cwd: repo });
    expect((JSON.parse(live.stdout) as Array<{ id: string; state: string }>).find((s) => s.id === id)?.state).toBe(
      "recording",
    );
    const rewind = await runNudge(["session", "rewind", id, "0", "--yes"], { cwd: repo });
    expect(rewind.exitCode, rewind.stderr).toBe(1);
    expect(rewind.stderr).toContain("being recorded");
    expect(readFileSync(path.join(repo, "sub", "a.txt"), "utf8")).toBe("from claude\n");
    writeFileSync(path.join(repo, "README.md"), "# test\nhand edit\n");
    await term.type("make b");
    await term.waitFor(/made b\.txt/);
    const manifest = await savedTurns(repo, id, 2);
    await term.type("/exit");
    expect(await term.exited()).toBe(0);

    expect(ids(repo)).toEqual([id]);
    expect(manifest.repo.cwd).toBe(cwd);
    expect(manifest.turns.map((t) => [t.n, t.prompt, t.status])).toEqual([
      [0, null, "complete"],
      [1, "write a", "complete"],
      [2, "make b", "complete"],
    ]);
    const dir = path.join(sessions(repo), id);
    const [, one, two] = manifest.turns;
    expect(one!.edits).toBeNull();
    expect(readFileSync(path.join(dir, one!.patch.file), "utf8")).toContain("+from claude");
    expect(readFileSync(path.join(dir, two!.edits!.patch.file), "utf8")).toContain("+hand edit");
    const turnTwo = readFileSync(path.join(dir, two!.patch.file), "utf8");
    expect(turnTwo).toContain("b.txt");
    expect(turnTwo).not.toContain("hand edit");

    const list = await runNudge(["session", "list"], { cwd: repo });
    expect(list.stdout).toContain(id);
    const show = await runNudge(["session", "show", id], { cwd: repo });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain("write a");
    expect(show.stdout).toContain("make b");
    const replay = await runNudge(["session", "replay", id], { cwd: repo });
    expect(replay.stdout).toContain("made b.txt");
    // claude gone: the session is complete, its lock let go, the index kept between hooks removed.
    const index = path.join(repo, ".git", "nudge", "index", id);
    await until("the session closed", async () =>
      readManifestFile(dir).state === "complete" && !existsSync(path.join(dir, "lock")) && !existsSync(index)
        ? true
        : undefined,
    );

    const removed = await runNudge(["hooks", "uninstall", "--claude"], { cwd: repo });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(readFileSync(path.join(repo, ".claude/settings.local.json"), "utf8")).toBe(own);
  }, 150_000);

  it("with no settings file before, uninstall removes the one install wrote; the file is ignored by git; an edit made after install survives uninstall", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    const file = path.join(repo, ".claude/settings.local.json");
    // No global ignore of claude's (claude writes one to ~/.config/git/ignore): nudge keeps the file out of git itself.
    const home = tempDir();
    const bare = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
    const first = await runNudge(["hooks", "install", "--claude"], { cwd: repo, env: bare });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toContain("info/exclude");
    expect(JSON.parse(readFileSync(file, "utf8")).hooks.UserPromptSubmit[0].hooks[0].timeout).toBeGreaterThan(0);
    const status = await runNudge(["hooks", "install", "--claude"], { cwd: repo, env: bare });
    expect(status.stdout).toContain("already installed");
    expect(
      execFileSync("git", ["status", "--porcelain"], { cwd: repo, env: { ...process.env, ...bare } }).toString(),
    ).toBe("");
    expect((await runNudge(["hooks", "uninstall", "--claude"], { cwd: repo })).exitCode).toBe(0);
    expect(existsSync(file)).toBe(false);

    // Edited after install: the user's key stays, nudge's entries go.
    writeFiles(repo, { ".claude/settings.local.json": '{\n  "model": "opus"\n}\n' });
    await runNudge(["hooks", "install", "--claude"], { cwd: repo });
    writeFileSync(file, readFileSync(file, "utf8").replace('"model": "opus"', '"model": "haiku"'));
    const edited = await runNudge(["hooks", "uninstall", "--claude"], { cwd: repo });
    expect(edited.stdout).toContain("edited since");
    expect(readFileSync(file, "utf8")).toBe('{\n  "model": "haiku"\n}\n');

    // --user: claude's config folder's settings.json, kept the same way.
    const config = tempDir();
    const user = path.join(config, "settings.json");
    writeFileSync(
      user,
      '{"theme":"dark","hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"echo mine"}]}]}}',
    );
    const before = readFileSync(user);
    const env = { CLAUDE_CONFIG_DIR: config };
    expect((await runNudge(["hooks", "install", "--claude", "--user"], { cwd: repo, env })).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(user, "utf8")).hooks.Stop).toHaveLength(2);
    expect((await runNudge(["hooks", "uninstall", "--claude", "--user"], { cwd: repo, env })).exitCode).toBe(0);
    expect(readFileSync(user).equals(before)).toBe(true);
  }, 60_000);

  it("a claude run by nudge claude run --tui or by nudge's own frontend with the hooks installed is recorded once; a hook that cannot write the store does not stall claude", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    expect((await runNudge(["hooks", "install", "--claude"], { cwd: repo })).exitCode).toBe(0);
    api = await startScriptedApi([
      { text: "first answer" },
      { text: "own frontend" },
      { text: "second answer" },
      { text: "third answer" },
    ]);
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
    const term = Terminal.nudge(["claude", "run", "--tui"], { cwd: repo, env });
    await term.ready();
    await term.type("hello");
    await term.waitFor(/first answer/);
    await term.type("/exit");
    expect(await term.exited()).toBe(0);
    // nudge's own frontend: claude -p runs the installed hooks too.
    const own = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "hi again"], { cwd: repo, env });
    expect(own.exitCode, own.stderr).toBe(0);
    await new Promise((r) => setTimeout(r, 1500)); // a finisher the hooks started would have run by now
    expect(ids(repo)).toHaveLength(2);
    const prompts = ids(repo).map((id) => readManifestFile(path.join(sessions(repo), id)).turns.map((t) => t.prompt));
    expect(prompts.sort()).toEqual([
      [null, "hello"],
      [null, "hi again"],
    ]);

    // A store nothing can be written in (under a file: root could write anywhere else): claude goes on at once.
    const plain = Terminal.open([CLAUDE_BIN], {
      cwd: repo,
      env: { ...env, NUDGE_STORE: path.join(repo, "README.md", "store") },
    });
    await plain.ready();
    const started = Date.now();
    await plain.type("again");
    await plain.waitFor(/second answer/);
    await plain.type("and again");
    await plain.waitFor(/third answer/);
    expect(Date.now() - started).toBeLessThan(15_000);
    await plain.type("/exit");
    expect(await plain.exited()).toBe(0);
    expect(ids(repo)).toHaveLength(2);
  }, 120_000);

  it("two plain claudes at once in one repository record a session each; a claude in a folder that is not git (hooks in the user's settings) runs unrecorded, told so once", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "a\n" } },
      { text: "A wrote" },
      { tool: "Write", input: { file_path: path.join(repo, "b.txt"), content: "b\n" } },
      { text: "B wrote" },
      { text: "not here" },
    ]);
    const config = path.join(tempDir(), "cfg");
    const env = tuiEnv(api, config, repo);
    expect((await runNudge(["hooks", "install", "--claude", "--user"], { cwd: repo, env })).exitCode).toBe(0);
    const one = Terminal.open([CLAUDE_BIN, "--permission-mode", "acceptEdits"], { cwd: repo, env });
    const two = Terminal.open([CLAUDE_BIN, "--permission-mode", "acceptEdits"], { cwd: repo, env });
    await one.ready();
    await two.ready();
    await one.type("write a");
    await one.waitFor(/A wrote/);
    await two.type("write b");
    await two.waitFor(/B wrote/);
    await one.type("/exit");
    await two.type("/exit");
    expect(await one.exited()).toBe(0);
    expect(await two.exited()).toBe(0);
    const both = await until("two sessions of one turn", async () => {
      const found = ids(repo).map((id) => readManifestFile(path.join(sessions(repo), id)));
      return found.length === 2 && found.every((m) => m.turns.length === 2 && m.state === "complete")
        ? found
        : undefined;
    });
    const byPrompt = Object.fromEntries(both.map((m) => [m.turns[1]!.prompt, m]));
    const patch = (prompt: string) =>
      readFileSync(path.join(sessions(repo), byPrompt[prompt]!.id, byPrompt[prompt]!.turns[1]!.patch.file), "utf8");
    expect(patch("write a")).toContain("a.txt");
    expect(patch("write a")).not.toContain("b.txt");
    expect(patch("write b")).toContain("b.txt");
    expect(patch("write b")).not.toContain("a.txt");

    const elsewhere = tempDir();
    tuiEnv(api, config, elsewhere);
    const outside = Terminal.open([CLAUDE_BIN], { cwd: elsewhere, env });
    await outside.ready();
    await outside.type("hello");
    const screen = await outside.waitFor(/not here/);
    expect(screen).toContain("nudge is not recording this session: not a git repository");
    await outside.type("/exit");
    expect(await outside.exited()).toBe(0);
    expect(existsSync(path.join(elsewhere, ".git"))).toBe(false);
  }, 150_000);

  it("the project's rules answer a plain claude's tools through the installed PreToolUse hook, as under --tui: a denied command never runs and claude is told why", async () => {
    const repo = await gitdir({ "keep.txt": "precious\n" });
    writeFiles(repo, {
      ".nudge/rules.yaml": `version: 1
rules:
  - id: no-rm
    match: { tool: Bash, command: '\\brm\\b' }
    action: deny
    message: Never delete files with rm here.
`,
    });
    expect((await runNudge(["hooks", "install", "--claude"], { cwd: repo })).exitCode).toBe(0);
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "rm keep.txt", description: "delete" } },
      { text: "all done" },
    ]);
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
    const term = Terminal.open([CLAUDE_BIN, "--permission-mode", "acceptEdits", "--allowedTools", "Bash"], {
      cwd: repo,
      env,
    });
    await term.ready();
    await term.type("clean up");
    await term.waitFor(/all done/);
    await term.type("/exit");
    expect(await term.exited()).toBe(0);
    expect(readFileSync(path.join(repo, "keep.txt"), "utf8")).toBe("precious\n");
    expect(JSON.stringify(api.mainLoopRequests()[1]!.body.messages)).toContain("Never delete files with rm here.");
  }, 90_000);

  it("a claude killed (kill -9) mid-turn: the session shows as cut off, and claude --resume records the cut-off turn from claude's transcript", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    expect((await runNudge(["hooks", "install", "--claude"], { cwd: repo })).exitCode).toBe(0);
    const held = new Promise<void>(() => undefined); // the first answer never comes: claude is killed waiting for it
    api = await startScriptedApi([{ after: held, then: { text: "never" } }, { text: "resumed answer" }]);
    const config = path.join(tempDir(), "cfg");
    const env = tuiEnv(api, config, repo);
    const term = Terminal.open([CLAUDE_BIN], { cwd: repo, env });
    await term.ready();
    await term.type("first");
    await until("the prompt asked", async () => (api!.mainLoopRequests().length >= 1 ? true : undefined));
    const id = ids(repo)[0]!;
    const claudeSession = readdirSync(path.join(repo, ".git", "nudge", "claude-ui"))[0]!;
    // Killed once its transcript holds the prompt (claude writes it a moment after sending it): --resume needs it.
    const transcript = path.join(config, "projects", repo.replace(/[^A-Za-z0-9]/g, "-"), `${claudeSession}.jsonl`);
    await until("the prompt in claude's transcript", async () =>
      existsSync(transcript) && readFileSync(transcript, "utf8").includes("first") ? true : undefined,
    );
    // The turn is begun (the user's edits captured) by the process the prompt's hook started: after that, a change is the turn's.
    await until("the turn begun", async () =>
      readFileSync(path.join(sessions(repo), id, "turns.jsonl"), "utf8").includes('"type":"begin"') &&
      !existsSync(path.join(sessions(repo), id, "claude-ui-prompt.json"))
        ? true
        : undefined,
    );
    writeFileSync(path.join(repo, "during.txt"), "written while claude worked\n");
    const shell = execFileSync("tmux", ["-L", term.socketName, "display-message", "-p", "#{pane_pid}"])
      .toString()
      .trim();
    const claude = Number(execFileSync("ps", ["-o", "pid=", "--ppid", shell]).toString().trim().split(/\s+/)[0]);
    process.kill(claude, "SIGKILL");
    await term.exited();
    const listed = await runNudge(["session", "list", "--json"], { cwd: repo });
    expect(listed.stdout).toMatch(/cut off|crashed/);

    const again = Terminal.open([CLAUDE_BIN, "--resume", claudeSession], { cwd: repo, env });
    await again.ready();
    await again.type("go on");
    await again.waitFor(/resumed answer/);
    await again.type("/exit");
    expect(await again.exited()).toBe(0);
    const manifest = await until("turn 2 saved", async () => {
      const m = readManifestFile(path.join(sessions(repo), id));
      return m.turns.length > 2 && m.state === "complete" ? m : undefined;
    });
    expect(manifest.turns.map((t) => [t.prompt, t.status])).toEqual([
      [null, "complete"],
      ["first", "incomplete"],
      ["go on", "complete"],
    ]);
    expect(readFileSync(path.join(sessions(repo), id, manifest.turns[1]!.patch.file), "utf8")).toContain("during.txt");
  }, 120_000);
});
