/**
 * The prompt line of `nudge claude run` on a real terminal, with the real claude binary and the
 * scripted API: a pasted block is one prompt, Ctrl-C clears a half-typed line, and the terminal
 * closing (at the prompt or mid-turn) ends the session cleanly, as a hang-up.
 */
import { execa } from "execa";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Manifest } from "../../src/store/manifest-schema.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal, plain } from "../support/pty.js";
import { readManifestFile } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** The prompt text of each main-loop request's last user message (what claude was asked). */
function promptsSent(api: ScriptedApi): string[] {
  return api.mainLoopRequests().map((r) => JSON.stringify(r.body.messages));
}

async function onlySession(repo: string): Promise<{ id: string; state: string; path: string; manifest: Manifest }> {
  const sessions = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
  expect(sessions).toHaveLength(1);
  return { ...sessions[0], manifest: readManifestFile(sessions[0].path) };
}

describe("the prompt line", () => {
  it("a 3-line bracketed paste, then Enter, is exactly one turn: one prompt with the three lines", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "ONE ANSWER" }, { text: "never asked" }]);
    // A real terminal type: nudge asks for bracketed paste, as it does for people.
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    expect(t.screen()).toContain("\u001b[?2004h");
    t.type("\u001b[200~TypeError: x is undefined\r\n    at f (app.js:3)\r\n    at g (app.js:7)\u001b[201~");
    await t.waitFor("at g (app.js:7)");
    t.type("\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    expect(api.mainLoopRequests()).toHaveLength(1);
    const { manifest } = await onlySession(repo);
    expect(manifest.turns.map((x) => x.prompt)).toEqual([
      null,
      "TypeError: x is undefined\n    at f (app.js:3)\n    at g (app.js:7)",
    ]);
    expect(promptsSent(api)[0]).toContain(
      JSON.stringify("TypeError: x is undefined\n    at f (app.js:3)\n    at g (app.js:7)"),
    );
  });

  it("Ctrl-C with text on the line clears it: nothing is sent, and the session goes on", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "ANSWER" }]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
    );
    await t.waitFor("› ");
    t.type("delete everything");
    await t.waitFor("› delete everything");
    t.type("\u0003");
    await t.waitFor(/› delete everything\s*\r› $/); // the line redrawn empty (a dumb terminal redraws with CR)
    t.type("the real question\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
    expect(api.mainLoopRequests()).toHaveLength(1);
    expect(promptsSent(api)[0]).toContain("the real question");
    expect(promptsSent(api)[0]).not.toContain("delete everything");
    expect((await onlySession(repo)).manifest.turns.map((x) => x.prompt)).toEqual([null, "the real question"]);
  });
});

/**
 * nudge under a shell that behaves like a person's on a hang-up: it passes the SIGHUP on to nudge
 * (as bash does to its jobs) and, unlike a person's, writes nudge's exit status to a file, since
 * the terminal it would print it on is gone. nudge's stderr goes to a file too, to catch a stack trace.
 */
function closableTerminal(repo: string, env: Record<string, string>) {
  const dir = tempDir("nudge-hup-");
  const status = path.join(dir, "status");
  const stderr = path.join(dir, "stderr");
  const q = (w: string) => `'${w.replaceAll("'", `'\\''`)}'`;
  const wrapper = path.join(dir, "shell.sh");
  writeFileSync(
    wrapper,
    [
      // A background job of a non-interactive shell reads /dev/null unless told otherwise: give it the terminal.
      "exec 3<&0",
      `node ${[NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN].map(q).join(" ")} <&3 3<&- 2>${q(stderr)} &`,
      "child=$!",
      "trap 'kill -HUP $child 2>/dev/null' HUP",
      // wait returns early when the trap runs: wait again until nudge has really gone.
      "while :; do wait $child; code=$?; kill -0 $child 2>/dev/null || break; done",
      `echo $code > ${q(status)}`,
    ].join("\n"),
  );
  const child = execa("script", ["-qfec", `sh ${q(wrapper)}`, "/dev/null"], {
    cwd: repo,
    env: { ...env, SHELL: "/bin/sh", NO_COLOR: "1", TERM: "dumb" },
    reject: false,
  });
  let screen = "";
  child.stdout!.on("data", (d: Buffer) => (screen += d.toString()));
  const poll = async (ok: () => boolean, what: string) => {
    const start = Date.now();
    while (!ok()) {
      if (Date.now() - start > 30_000) throw new Error(`timed out waiting for ${what} in:\n${plain(screen)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return {
    type: (keys: string) => child.stdin!.write(keys),
    waitFor: (text: string) => poll(() => plain(screen).includes(text), text),
    /** nudge's notices (the turn's end line among them) go to stderr, a file here. */
    waitForNotice: (text: string) =>
      poll(() => existsSync(stderr) && readFileSync(stderr, "utf8").includes(text), text),
    /** The terminal emulator dies: the pty's other end closes, as when a window is closed. */
    close: async () => {
      child.kill("SIGKILL");
      await child;
    },
    /** nudge's exit status and stderr, once it has exited. */
    exit: async () => {
      await poll(() => existsSync(status) && readFileSync(status, "utf8").endsWith("\n"), "nudge to exit");
      return { code: Number(readFileSync(status, "utf8")), stderr: readFileSync(stderr, "utf8") };
    },
  };
}

describe("the terminal closing", () => {
  it("at the prompt: the bundle is complete, the lock gone, exit status 129, no stack trace", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "FIRST ANSWER" }]);
    const t = closableTerminal(repo, claudeEnv(api, path.join(tempDir(), "cfg")));
    await t.waitFor("› ");
    t.type("hello\r");
    await t.waitForNotice("turn 1 saved"); // the prompt line follows
    t.type("half a thought");
    await t.waitFor("half a thought");
    await t.close();
    const exit = await t.exit();
    expect(exit.code, exit.stderr).toBe(129);
    expect(exit.stderr).not.toMatch(/\n\s+at |Error|nudge bug/);
    const session = await onlySession(repo);
    expect(exit.stderr).toContain(`● session ${session.id}: 1 turn`); // the terminal is gone; stderr, a file here, still gets the last line
    expect(session.state).toBe("complete");
    expect(existsSync(path.join(session.path, "lock"))).toBe(false);
    expect(session.manifest.turns.map((x) => [x.prompt, x.status])).toEqual([
      [null, "complete"],
      ["hello", "complete"],
    ]);
  });

  it("at a permission question: the tool is refused, the turn kept as interrupted, the bundle complete, exit status 129", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "never.txt"), content: "x\n" } },
      { text: "stopped" },
    ]);
    const t = closableTerminal(repo, claudeEnv(api, path.join(tempDir(), "cfg")));
    await t.waitFor("› ");
    t.type("write never.txt\r");
    await t.waitFor("Allow?");
    await t.close();
    const exit = await t.exit();
    expect(exit.code, exit.stderr).toBe(129);
    expect(exit.stderr).not.toMatch(/\n\s+at |Error|nudge bug/);
    expect(existsSync(path.join(repo, "never.txt"))).toBe(false);
    const session = await onlySession(repo);
    expect(session.state).toBe("complete");
    expect(existsSync(path.join(session.path, "lock"))).toBe(false);
    expect(session.manifest.turns.map((x) => x.prompt)).toEqual([null, "write never.txt"]);
    expect(session.manifest.turns[1]!.status).toBe("interrupted");
  });

  it("mid-turn: the turn is interrupted and kept, the bundle complete, the lock gone, exit status 129, no stack trace", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ delayMs: 60_000, then: { text: "never seen" } }]);
    const t = closableTerminal(repo, claudeEnv(api, path.join(tempDir(), "cfg")));
    await t.waitFor("› ");
    t.type("a long task\r");
    const start = Date.now();
    while (api.mainLoopRequests().length === 0 && Date.now() - start < 20_000)
      await new Promise((r) => setTimeout(r, 25));
    await t.close();
    const exit = await t.exit();
    expect(exit.code, exit.stderr).toBe(129);
    expect(exit.stderr).not.toMatch(/\n\s+at |Error|nudge bug/);
    const session = await onlySession(repo);
    expect(exit.stderr).toContain(`● session ${session.id}: 1 turn`); // the terminal is gone; stderr, a file here, still gets the last line
    expect(session.state).toBe("complete");
    expect(existsSync(path.join(session.path, "lock"))).toBe(false);
    expect(session.manifest.turns.map((x) => [x.prompt, x.status])).toEqual([
      [null, "complete"],
      ["a long task", "interrupted"],
    ]);
  });
});
