/**
 * `nudge claude run` on a real terminal, in claude's DEFAULT permission mode (no --permission-mode,
 * no --allowed-tools: the quick start), with the real claude binary and the scripted API: claude
 * asks, the person answers at the prompt, and claude gets the answer.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptStep, type ScriptedApi } from "../support/scripted-api.js";
import { DATABASE_QUESTION } from "../support/questions.js";
import { readStreamOf } from "../support/stream.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function run(steps: ScriptStep[], args: string[] = []) {
  const repo = await gitdir();
  api = await startScriptedApi(steps);
  const t = inTerminal(
    repo,
    ["claude", "run", "--claude-bin", CLAUDE_BIN, ...args],
    claudeEnv(api, path.join(tempDir(), "cfg")),
  );
  await t.waitFor("› ");
  return { repo, t, api };
}

/** `text` as the terminal shows it when it may be cut into rows anywhere (a space may be where a row ends). */
function acrossRows(text: string): RegExp {
  return new RegExp(
    text
      .split("")
      .map((c) => (c === " " ? "[ \\r\\n]+" : c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("[\\r\\n]*"),
  );
}

/** How often `what` appears in the text (a question is asked once: its label is drawn once per key on a dumb terminal, so count headings). */
function count(text: string, what: string): number {
  return text.split(what).length - 1;
}

/** What claude sent back for the tool call of the previous step: the last tool_result block in the next request. */
function toolResult(request: { body: { messages: Array<{ content: unknown }> } }) {
  type Block = { type: string; content?: unknown; is_error?: boolean };
  const blocks = request.body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Block[]) : []));
  const block = blocks.filter((b) => b.type === "tool_result").at(-1)!;
  return { text: JSON.stringify(block.content), isError: block.is_error === true };
}

async function sessionOf(repo: string) {
  const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
  return { ...session, manifest: readManifestFile(session.path) };
}

describe("claude asks, in the default permission mode", () => {
  it("a Write asked and allowed: the file is written and the decision shown; a Bash asked and denied with a reason: it never runs, claude gets the reason", async () => {
    const { repo, t, api } = await run([]);
    api.push(
      { tool: "Write", input: { file_path: path.join(repo, "hello.txt"), content: "hi there\n" } },
      { tool: "Bash", input: { command: "echo ran > ran.txt", description: "make ran.txt" } },
      { text: "DONE" },
    );
    t.type("write hello.txt\r");
    // The question is drawn whole once its Allow? line is: the terminal may get its lines in pieces.
    await t.waitFor(/\? Write\(hello\.txt\)[^]*Allow\?/);
    expect(t.text()).toMatch(/\? Write\(hello\.txt\)[^]*\+hi there[^]*Allow\?/); // the change, as a diff, before the question
    t.type("y\r");
    await t.waitFor("? Bash");
    expect(t.text()).toContain("✓ allowed Write(hello.txt)");
    expect(readFileSync(path.join(repo, "hello.txt"), "utf8")).toBe("hi there\n");
    t.type("n\r");
    await t.waitFor("Reason for claude");
    t.type("use printf instead\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    // Wider than the terminal: wrapped between words.
    expect(t.text().replace(/\s+/g, " ")).toContain(
      "✗ denied Bash(echo ran > ran.txt): The user refused this tool call: use printf instead",
    );
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);

    expect(existsSync(path.join(repo, "ran.txt"))).toBe(false);
    const [, afterWrite, afterBash] = api.mainLoopRequests();
    expect(toolResult(afterWrite!).isError).toBe(false);
    expect(toolResult(afterBash!)).toEqual({ isError: true, text: expect.stringContaining("use printf instead") });
    const { manifest } = await sessionOf(repo);
    expect(manifest.turns.at(-1)!.patch.filesChanged).toBe(1); // hello.txt, recorded with the turn
  });

  it('"always": the second identical request is not asked, and runs', async () => {
    const bash = { tool: "Bash", input: { command: "echo again >> log.txt", description: "append" } };
    const { repo, t } = await run([bash, bash, { text: "DONE" }]);
    t.type("append twice\r");
    await t.waitFor("? Bash");
    t.type("a\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    await t.child;
    expect(count(t.text(), "? Bash")).toBe(1);
    expect(t.text()).toContain("✓ allowed Bash(echo again >> log.txt) · for this session: this same call");
    expect(readFileSync(path.join(repo, "log.txt"), "utf8")).toBe("again\nagain\n");
    // claude 2.1.329 asks again (its session rule does not cover a redirect); nudge answers itself.
    const { path: dir } = await sessionOf(repo);
    const asked = readStreamOf(dir)
      .toString("utf8")
      .split("\n")
      .filter((l) => l.includes('"subtype":"can_use_tool"'));
    const allowed = readFileSync(path.join(dir, "input.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.includes('"behavior":"allow"'));
    expect(allowed).toHaveLength(asked.length);
  });

  it("\"don't ask again\" on a Write takes claude's suggestion (edits accepted for the session): the next Write, to another file, is not asked", async () => {
    const { repo, t } = await run([]);
    api!.push(
      { tool: "Write", input: { file_path: path.join(repo, "one.txt"), content: "1\n" } },
      { tool: "Write", input: { file_path: path.join(repo, "two.txt"), content: "2\n" } },
      { text: "DONE" },
    );
    t.type("write two files\r");
    // On this dumb terminal a question wider than 80 columns goes on in a second row.
    await t.waitFor(acrossRows("[d]on't ask again (save mode acceptEdits (every file edit allowed) in this session)"));
    t.type("d\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    await t.child;
    expect(count(t.text(), "? Write(")).toBe(1);
    // What was saved, and for how long: a mode for every edit, not "Write(one.txt) always".
    // Wider than the terminal: wrapped between words.
    expect(t.text().replace(/\s+/g, " ")).toContain(
      "✓ allowed Write(one.txt) · for this session: mode acceptEdits (every file edit allowed)",
    );
    expect(readFileSync(path.join(repo, "two.txt"), "utf8")).toBe("2\n");
  });

  it('"always" on a Write says it keeps this same call for the session (claude suggests no rule for it, so nothing else is kept)', async () => {
    const { repo, t } = await run([]);
    const write = { tool: "Write", input: { file_path: path.join(repo, "a1.txt"), content: "1\n" } };
    api!.push(write, write, { text: "DONE" });
    t.type("write it twice\r");
    await t.waitFor("Allow?");
    t.type("a\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    await t.child;
    expect(count(t.text(), "? Write(")).toBe(1);
    expect(t.text()).toContain("✓ allowed Write(a1.txt) · for this session: this same call");
  });

  it("an AskUserQuestion answered by number: claude receives the chosen option", async () => {
    const { repo, t, api } = await run([
      { tool: "AskUserQuestion", input: { questions: [DATABASE_QUESTION] } },
      { text: "SQLite it is" },
    ]);
    t.type("pick a database\r");
    await t.waitFor("Choose 1-3");
    expect(t.text()).toMatch(
      /\? Database Which database should I use\?\n {2}1\. PostgreSQL — a server\n {2}2\. SQLite — a file\n {2}3\. Other/,
    );
    t.type("2\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    await t.child;
    expect(t.text()).toContain('? answered "Which database should I use?" = SQLite');
    const answer = toolResult(api.mainLoopRequests()[1]!);
    expect(answer.text).toContain('\\"Which database should I use?\\"=\\"SQLite\\"');
    expect((await sessionOf(repo)).state).toBe("complete");
  });
});

describe("ExitPlanMode, in --permission-mode plan", () => {
  const plan = { tool: "ExitPlanMode", input: { plan: "1. Add the function\n2. Test it" } };

  it("approved: claude is told, and goes on", async () => {
    const { t, api } = await run([plan, { text: "IMPLEMENTING" }], ["--permission-mode", "plan"]);
    t.type("plan it\r");
    await t.waitFor("Approve the plan?");
    expect(t.text()).toContain("│ 1. Add the function\n│ 2. Test it");
    t.type("y\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    await t.child;
    expect(t.text()).toContain("✓ plan approved");
    expect(t.text()).toContain("IMPLEMENTING");
    expect(toolResult(api.mainLoopRequests()[1]!)).toEqual({
      isError: false,
      text: expect.stringContaining("User has approved"),
    });
  });

  it("refused with feedback: claude keeps planning and receives the feedback", async () => {
    const { t, api } = await run([plan, { text: "REVISED" }], ["--permission-mode", "plan"]);
    t.type("plan it\r");
    await t.waitFor("Approve the plan?");
    t.type("n\r");
    await t.waitFor("What should change?");
    t.type("test it first\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);
    t.type("/exit\r");
    await t.child;
    expect(t.text()).toContain("✗ kept planning: The user wants you to keep planning: test it first");
    expect(toolResult(api.mainLoopRequests()[1]!)).toEqual({
      isError: true,
      text: expect.stringContaining("test it first"),
    });
  });
});
