/**
 * A loop on a real terminal (a pseudo-terminal from util-linux `script`): a tripped guard pauses
 * and asks; "continue" goes on, "rewind" puts code and conversation back at the best turn.
 */
import { execa } from "execa";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { unwrapped } from "../support/pty.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { treeListing, workTreeListing } from "../support/tree-listing.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function inTerminal(repo: string, env: Record<string, string>, args: string[]) {
  // exec: nudge is the shell itself, so the terminal's signals reach nudge alone.
  const command = `exec node ${[NUDGE_CLI, ...args].map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(" ")}`;
  const child = execa("script", ["-qfec", command, "/dev/null"], {
    cwd: repo,
    env: { ...env, SHELL: "/bin/sh", NO_COLOR: "1", TERM: "dumb" },
    reject: false,
  });
  let screen = "";
  child.stdout!.on("data", (d: Buffer) => (screen += d.toString()));
  const waitFor = async (text: string, times = 1) => {
    const start = Date.now();
    // A line wider than the terminal is wrapped between words: read it across its rows.
    while (unwrapped(screen).split(text).length - 1 < times) {
      if (Date.now() - start > 30_000) throw new Error(`timed out waiting for ${text} in:\n${screen}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return { child, waitFor, type: (keys: string) => child.stdin!.write(keys), screen: () => screen };
}

const COUNTING_CHECK = `n=0; for f in a b c; do test -f "$f" && n=$((n+1)); done; echo "== $((3-n)) failed, $n passed in 0.01s =="; test "$n" = 3`;

describe("nudge claude loop on a terminal", () => {
  it("a tripped guard asks: continue goes on; rewind puts the files back at the best turn and ends the loop", async () => {
    const repo = await gitdir();
    const write = (file: string) => ({
      tool: "Write",
      input: { file_path: path.join(repo, file), content: `${file}\n` },
    });
    api = await startScriptedApi([
      write("a"),
      { text: "made a" },
      write("b"),
      { text: "made b" },
      { tool: "Bash", input: { command: "rm b", description: "remove b" } },
      { text: "removed b" },
      { text: "stuck" },
      { text: "still stuck" },
      { text: "never asked" },
    ]);
    const args = [
      "claude",
      "loop",
      "--claude-bin",
      CLAUDE_BIN,
      "--permission-mode",
      "acceptEdits",
      "--allowed-tools",
      "Bash",
    ];
    const t = inTerminal(repo, claudeEnv(api, path.join(tempDir(), "cfg")), [
      ...args,
      "make a, b and c",
      "--until",
      COUNTING_CHECK,
      "--guard-no-change",
      "1",
    ]);
    const question =
      "[c]ontinue, [s]top, or [r]ewind to turn 2 (the best so far: exit 1 · 1 failed, 2 passed)? [c/S/r]";
    await t.waitFor(question);
    expect(t.screen()).toContain("guard: no file changed in 1 iteration in a row (--guard-no-change 1)");
    t.type("c\r");
    await t.waitFor(question, 2);
    t.type("r\r");
    await t.waitFor("rewind to turn 2? [y/N]");
    t.type("y\r");
    const run = await t.child;
    expect(run.exitCode, t.screen()).toBe(3);
    expect(t.screen()).toContain(
      "■ loop stopped: guard tripped: no file changed in 1 iteration in a row (--guard-no-change 1); you rewound to turn 2 · 5 iterations",
    );
    const loopSession = /recording session (\w+)/.exec(t.screen())![1]!;
    const manifest = readManifestFile(path.join(repo, ".git", "nudge", "sessions", loopSession));
    expect(manifest.turns).toHaveLength(6);
    expect(await workTreeListing(repo)).toEqual(await treeListing(repo, manifest.turns[2]!.snapshot.tree));
    expect(existsSync(path.join(repo, "b"))).toBe(true);
    // The loop's session keeps every turn; the rewind continues in a fork of it.
    const sessions = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    expect(
      sessions.find((s: { parent: { id: string; turn: number } | null }) => s.parent?.id === loopSession)?.parent,
    ).toEqual({ id: loopSession, turn: 2 });
  });
});
