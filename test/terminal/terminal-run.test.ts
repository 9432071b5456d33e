/**
 * `nudge claude run` on a real terminal: a pseudo-terminal from util-linux `script`, typed into
 * like a person would (type-ahead included), with the real claude binary behind it.
 */
import { execa } from "execa";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { recordThreeTurns } from "../support/three-turns.js";
import { workTreeListing } from "../support/tree-listing.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function inTerminal(repo: string, env: Record<string, string>, args = ["claude", "run", "--claude-bin", CLAUDE_BIN]) {
  // script runs the command with `$SHELL -c`. `exec` makes nudge the shell itself, so that the
  // terminal's Ctrl-C reaches nudge alone: a shell that stayed (dash does) would die of the
  // SIGINT that nudge handles, and script would report the shell's 130.
  const command = `exec node ${[NUDGE_CLI, ...args].map(shellQuote).join(" ")}`;
  // script -q: no banner; -f: flush as it goes; -e: exit with the child's code; -c: the command.
  const child = execa("script", ["-qfec", command, "/dev/null"], {
    cwd: repo,
    env: { ...env, SHELL: "/bin/sh", NO_COLOR: "1", TERM: "dumb" },
    reject: false,
  });
  let screen = "";
  child.stdout!.on("data", (d: Buffer) => (screen += d.toString()));
  const waitFor = async (text: string | RegExp) => {
    const start = Date.now();
    while (!(typeof text === "string" ? screen.includes(text) : text.test(screen))) {
      if (Date.now() - start > 20_000) throw new Error(`timed out waiting for ${text} in:\n${screen}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return { child, waitFor, type: (keys: string) => child.stdin!.write(keys), screen: () => screen };
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

describe("nudge claude run on a terminal", () => {
  it("prompts, keeps typed-ahead lines, answers /session, and ends on /exit with a complete bundle", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ delayMs: 300, then: { text: "FIRST ANSWER" } }, { text: "SECOND ANSWER" }]);
    const t = inTerminal(repo, claudeEnv(api, path.join(tempDir(), "cfg")));
    await t.waitFor("› ");
    t.type("first question\r");
    t.type("second question\r"); // typed while the first turn runs
    await t.waitFor(/turn 2 · success[^]*turn 2 saved/);
    t.type("/session\r");
    await t.waitFor(/claude session [0-9a-f-]{36}/);
    t.type("/exit\r");
    const run = await t.child;
    expect(run.exitCode, t.screen()).toBe(0);
    expect(t.screen()).toContain("FIRST ANSWER");
    expect(t.screen()).toContain("SECOND ANSWER");
    expect(t.screen()).toMatch(/turns +2/);
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    expect(session.state).toBe("complete");
    expect(readManifestFile(session.path).turns.map((x) => x.prompt)).toEqual([
      null,
      "first question",
      "second question",
    ]);
  });

  it("Ctrl-C during a turn interrupts it; Ctrl-C twice at the prompt ends the session cleanly", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ delayMs: 30_000, then: { text: "never seen" } }]);
    const t = inTerminal(repo, claudeEnv(api, path.join(tempDir(), "cfg")));
    await t.waitFor("› ");
    t.type("a long task\r");
    const start = Date.now();
    while (api.mainLoopRequests().length === 0 && Date.now() - start < 20_000)
      await new Promise((r) => setTimeout(r, 25));
    t.type("\x03"); // Ctrl-C while claude works
    await t.waitFor("turn interrupted");
    await t.waitFor(/turn 1 · interrupted[\s\S]*› $/);
    t.type("\x03"); // Ctrl-C at the prompt: a hint first, so a stray Ctrl-C does not end the session
    await t.waitFor("press Ctrl-C again to exit");
    t.type("\x03");
    const run = await t.child;
    expect(run.exitCode, t.screen()).toBe(0);
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    expect(session.state).toBe("complete");
    expect(readManifestFile(session.path).turns.map((x) => x.status)).toEqual(["complete", "interrupted"]);
  });

  it("Ctrl-C or Ctrl-D at a rewind's question is a no: nothing changes, exit 1", async () => {
    const { repo, id, api: recordingApi } = await recordThreeTurns();
    api = recordingApi;
    const before = await workTreeListing(repo);
    for (const key of ["\x03", "\x04"]) {
      const t = inTerminal(repo, {}, ["session", "rewind", id, "1"]);
      await t.waitFor("[y/N] ");
      t.type(key);
      const run = await t.child;
      expect(run.exitCode, t.screen()).toBe(1);
      expect(t.screen()).toContain("error: cancelled; nothing was changed");
      expect(t.screen()).not.toContain("nudge bug");
      expect(await workTreeListing(repo)).toEqual(before);
    }
  });
});
