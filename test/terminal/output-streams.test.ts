/**
 * Issue 15, item 17: what goes where. stdout is claude's words alone; tool calls, decisions, the
 * turn's end line and the session's lines are nudge's notices, on stderr. Piped into a reader that
 * also writes to the terminal (`| tee log`), the log holds the answer only, and the notices, drawn
 * through the screen on stderr, are never glued to the prompt.
 */
import { execa } from "execa";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runClaude } from "../support/record.js";
import { NUDGE_CLI } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { render } from "./pty.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const quote = (w: string) => `'${w.replaceAll("'", `'\\''`)}'`;

describe("stdout is claude's words, stderr nudge's notices", () => {
  it("piped: stdout holds the answer only; the tool line and the turn line are on stderr", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "echo hi > hi.txt" }, text: "Writing it." },
      { text: "The fix is in." },
    ]);
    const run = await runClaude(repo, ["fix"], claudeEnv(api, path.join(tempDir(), "cfg")));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe("Writing it.\nThe fix is in.");
    expect(run.stderr).toContain("⏺ Bash(echo hi > hi.txt)");
    expect(run.stderr).toMatch(/^● turn 1 · success · .*\n {2}⎿ turn 1 saved · 1 file \+1 -0$/m);
  });

  it("`nudge claude run 'fix' | tee log` on a terminal: every line whole, none glued to the prompt", async () => {
    const repo = await gitdir();
    const log = path.join(tempDir(), "log");
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "echo hi > hi.txt" }, text: "Writing it." },
      { textParts: ["The fix ", "is ", "in, ", "in parts."] },
      { text: "Second answer." },
    ]);
    const env = {
      ...claudeEnv(api, path.join(tempDir(), "cfg")),
      SHELL: "/bin/sh",
      NO_COLOR: "1",
      TERM: "xterm-256color",
    };
    const args = [NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "--allowed-tools", "Bash", "fix"]
      .map(quote)
      .join(" ");
    const child = execa("script", ["-qfec", `stty cols 80 rows 24; node ${args} | tee ${quote(log)}`, "/dev/null"], {
      cwd: repo,
      env,
      reject: false,
    });
    let raw = "";
    child.stdout!.on("data", (d: Buffer) => (raw += d.toString()));
    const waitFor = async (re: RegExp) => {
      for (let i = 0; i < 1200 && !re.test(raw); i++) await new Promise((r) => setTimeout(r, 25));
      expect(raw).toMatch(re);
    };
    await waitFor(/turn 1 · success[^]*turn 1 saved/);
    child.stdin!.write("again\r");
    await waitFor(/turn 2 · success[^]*turn 2 saved/);
    child.stdin!.write("/exit\r");
    await child;
    const rows = (await render(raw, 80, 24)).lines;
    // Each line on a row of its own: the turn lines start theirs, claude's lines are whole.
    expect(
      rows.filter((r) => r.includes("● turn")).every((r) => r.startsWith("● turn")),
      rows.join("\n"),
    ).toBe(true);
    expect(
      rows.filter((r) => r.includes("⎿ turn")).every((r) => r.startsWith("  ⎿ turn")),
      rows.join("\n"),
    ).toBe(true);
    expect(rows, rows.join("\n")).toContain("The fix is in, in parts.");
    expect(rows, rows.join("\n")).toContain("Second answer.");
    expect(
      rows.filter((r) => r.includes("›") && /●|⏺|The fix|Second/.test(r)),
      rows.join("\n"),
    ).toEqual([]);
    // What tee logged: claude's words, nothing of nudge's.
    expect(readFileSync(log, "utf8")).toBe("Writing it.\nThe fix is in, in parts.\nSecond answer.\n");
  });
});
