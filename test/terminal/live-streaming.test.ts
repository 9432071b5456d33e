/**
 * Claude's words as they are typed, through `nudge claude run` with the real claude binary: text
 * is on screen while the message is still being written (claude runs with
 * --include-partial-messages), and thinking stays hidden unless -v.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { render } from "./pty.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("output as it happens", () => {
  it("on a terminal, the first half of a message is shown while claude is still writing the second, under a status line", async () => {
    const repo = await gitdir();
    let finish!: () => void;
    const secondHalf = new Promise<void>((resolve) => (finish = resolve));
    api = await startScriptedApi([
      { textParts: ["The first half is here,", secondHalf, " and the second half follows."] },
    ]);
    const t = inTerminal(
      repo,
      ["claude", "run", "--claude-bin", CLAUDE_BIN],
      claudeEnv(api, path.join(tempDir(), "cfg")),
      { term: "xterm-256color" },
    );
    await t.waitFor("› ");
    t.type("tell me in two halves\r");
    await t.waitFor("The first half is here,");
    // The API has not sent the rest: what is on screen came from the stream, not the finished message.
    // The status line is redrawn below the text on its own tick: give it a moment to come back.
    let midway = (await render(t.screen(), 80, 24)).lines;
    for (let i = 0; i < 80 && !midway.some((l) => l.includes("Ctrl-C to interrupt")); i++) {
      await new Promise((r) => setTimeout(r, 25));
      midway = (await render(t.screen(), 80, 24)).lines;
    }
    expect(midway.join("\n")).not.toContain("second half");
    expect(midway.join("\n")).not.toMatch(/turn 1 ·/);
    expect(midway.some((l) => l.includes("Ctrl-C to interrupt"))).toBe(true); // the status line, below the text
    finish();
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    let done = (await render(t.screen(), 80, 24)).lines;
    // The prompt line comes back after the end line, how full the context is under it.
    const back = (lines: string[]) => lines.at(-2)?.trim() === "›" && /^context /.test(lines.at(-1) ?? "");
    for (let i = 0; i < 200 && !back(done); i++) {
      await new Promise((r) => setTimeout(r, 25));
      done = (await render(t.screen(), 80, 24)).lines;
    }
    expect(back(done), done.join("\n")).toBe(true);
    expect(done).toContain("The first half is here, and the second half follows."); // one line, continued where it stopped
    expect(done.join("\n")).not.toContain("Ctrl-C to interrupt");
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);
  });

  it("thinking is hidden without -v, shown dim (✻) with it; the answer either way", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { thinking: "PONDERING THE OPTIONS", text: "THE ANSWER" },
      { thinking: "PONDERING AGAIN", text: "THE ANSWER AGAIN" },
    ]);
    const env = claudeEnv(api, path.join(tempDir(), "cfg"));
    const quiet = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "think"], { cwd: repo, env });
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain("THE ANSWER");
    expect(quiet.stdout + quiet.stderr).not.toContain("PONDERING");
    const verbose = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-v", "think again"], {
      cwd: repo,
      env,
    });
    expect(verbose.exitCode, verbose.stderr).toBe(0);
    expect(verbose.stdout).toContain("✻ PONDERING AGAIN\n");
    expect(verbose.stdout).toContain("THE ANSWER AGAIN");
  });
});
