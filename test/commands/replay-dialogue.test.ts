/**
 * Both directions of a session are in its bundle: what claude wrote (conversation.jsonl) and what
 * nudge wrote to claude (input.jsonl: prompts and the user's answers), each line with its time.
 * Recorded once on a real pty with the real claude binary, in the default permission mode.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { runNudge } from "../support/run-nudge.js";
import { DATABASE_QUESTION } from "../support/questions.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { readStreamOf, writeStreamOf } from "../support/stream.js";

const QUESTION = DATABASE_QUESTION;

let repo: string;
let bundle: string;
let id: string;
let api: ScriptedApi;

beforeAll(async () => {
  repo = await gitdir();
  api = await startScriptedApi([]);
  api.push(
    { tool: "Write", input: { file_path: path.join(repo, "hello.txt"), content: "hi\n" } },
    { tool: "Bash", input: { command: "echo ran > ran.txt", description: "make ran.txt" } },
    { text: "TURN ONE DONE" },
    { tool: "AskUserQuestion", input: { questions: [QUESTION] } },
    { text: "SQLite it is" },
  );
  const t = inTerminal(
    repo,
    ["claude", "run", "--claude-bin", CLAUDE_BIN],
    claudeEnv(api, path.join(tempDir(), "cfg")),
  );
  await t.waitFor("› ");
  t.type("write hello\r");
  await t.waitFor("? Write(hello.txt)");
  t.type("y\r");
  await t.waitFor("? Bash");
  t.type("n\r");
  await t.waitFor("Reason for claude");
  t.type("use printf\r");
  await t.waitFor("turn 1 · success");
  t.type("pick a database\r");
  await t.waitFor("Choose 1-3");
  t.type("2\r");
  await t.waitFor("turn 2 · success");
  t.type("/exit\r");
  expect((await t.child).exitCode, t.text()).toBe(0);
  id = /session (\w+):/.exec(t.text())![1]!;
  bundle = path.join(repo, ".git", "nudge", "sessions", id);
}, 90_000);

afterAll(async () => {
  await api?.close();
});

type Line = { at: number; from: "claude" | "nudge"; json: Record<string, any> };

function timed(file: string, timing: string, from: Line["from"]): Line[] {
  const times = readFileSync(path.join(bundle, timing), "utf8").split("\n").filter(Boolean).map(Number);
  const text =
    file === "conversation.jsonl"
      ? readStreamOf(bundle).toString("utf8")
      : readFileSync(path.join(bundle, file), "utf8");
  const lines = text.split("\n").filter(Boolean);
  expect(times).toHaveLength(lines.length);
  return lines.map((l, i) => ({ at: times[i]!, from, json: JSON.parse(l) }));
}

describe("the bundle holds the dialogue", () => {
  it("conversation.jsonl and input.jsonl merged by time: every prompt, question and answer, in order", () => {
    const merged = [
      ...timed("input.jsonl", "input-timing.txt", "nudge"),
      ...timed("conversation.jsonl", "timing.txt", "claude"),
    ];
    // By time; a tie (same millisecond) puts nudge's line first: claude reacts to it, never the reverse here.
    merged.sort((a, b) => a.at - b.at || (a.from === b.from ? 0 : a.from === "nudge" ? -1 : 1));
    const dialogue: string[] = [];
    const asked = new Map<string, string>();
    // nudge's own answers to its hooks (the edits gate holds every tool that can change files) are not the user's.
    const hooks = new Set(
      merged
        .filter(({ json }) => json.type === "control_request" && json.request.subtype === "hook_callback")
        .map(({ json }) => json.request_id as string),
    );
    for (const { from, json } of merged) {
      if (from === "nudge" && json.type === "user") dialogue.push(`user: ${json.message.content}`);
      if (from === "nudge" && json.type === "control_response" && !hooks.has(json.response.request_id)) {
        const r = json.response.response;
        const tool = asked.get(json.response.request_id) ?? "(a request not asked before)";
        dialogue.push(
          `user answers ${tool}: ${r.behavior}${r.message ? ` (${r.message})` : ""}${r.updatedInput?.answers ? ` ${JSON.stringify(r.updatedInput.answers)}` : ""}`,
        );
      }
      if (from === "claude" && json.type === "control_request" && json.request.subtype === "can_use_tool") {
        asked.set(json.request_id, json.request.tool_name);
        dialogue.push(`claude asks: ${json.request.tool_name}`);
      }
      if (from === "claude" && json.type === "assistant") {
        for (const block of json.message.content) if (block.type === "text") dialogue.push(`claude: ${block.text}`);
      }
      if (from === "claude" && json.type === "result") dialogue.push("(turn ends)");
    }
    expect(dialogue).toEqual([
      "user: write hello",
      "claude asks: Write",
      "user answers Write: allow",
      "claude asks: Bash",
      "user answers Bash: deny (The user refused this tool call: use printf)",
      "claude: TURN ONE DONE",
      "(turn ends)",
      "user: pick a database",
      "claude asks: AskUserQuestion",
      'user answers AskUserQuestion: allow {"Which database should I use?":"SQLite"}',
      "claude: SQLite it is",
      "(turn ends)",
    ]);
  });
});

describe("nudge session replay shows the decisions", () => {
  const decisions = [
    "✓ allowed Write(hello.txt)",
    "✗ denied Bash(echo ran > ran.txt): The user refused this tool call: use printf",
    '? answered "Which database should I use?" = SQLite',
  ];

  function expectInOrder(text: string, needles: string[]): void {
    let at = 0;
    for (const needle of needles) {
      const index = text.indexOf(needle, at);
      expect(index, `${needle} after offset ${at} in:\n${text}`).toBeGreaterThanOrEqual(0);
      at = index + needle.length;
    }
  }

  it("each where it was made, once, and --turn picks a turn's own", async () => {
    const run = await runNudge(["session", "replay", id], { cwd: repo });
    expect(run.exitCode, run.stderr).toBe(0);
    expectInOrder(run.stdout, [
      "── turn 1 · write hello ──",
      "› write hello",
      "⏺ Write(hello.txt)",
      decisions[0]!,
      "⏺ Bash(echo ran > ran.txt)",
      decisions[1]!,
      "TURN ONE DONE",
      "● turn 1 · success",
      "── turn 2 · pick a database ──",
      "› pick a database",
      "⏺ AskUserQuestion(Which database should I use?)",
      decisions[2]!,
      "SQLite it is",
      "● turn 2 · success",
    ]);
    for (const line of decisions) expect(run.stdout.split(line)).toHaveLength(2);
    const two = await runNudge(["session", "replay", id, "--turn", "2"], { cwd: repo });
    expect(two.stdout).toContain(decisions[2]);
    expect(two.stdout).not.toContain(decisions[0]);
    expect(two.stdout).not.toContain(decisions[1]);
  });

  it("from input.jsonl: with claude's echo of the answers gone from conversation.jsonl, the replay still shows them", async () => {
    const original = readStreamOf(bundle);
    // Same length, so the turns' line and byte ranges still hold.
    const blanked = original
      .toString("utf8")
      .split("\n")
      .map((l) => (l.startsWith('{"type":"control_response"') ? pad(l) : l))
      .join("\n");
    expect(blanked).not.toEqual(original.toString("utf8"));
    writeStreamOf(bundle, blanked);
    try {
      const run = await runNudge(["session", "replay", id], { cwd: repo });
      expect(run.exitCode, run.stderr).toBe(0);
      expectInOrder(run.stdout, [
        "⏺ Write(hello.txt)",
        decisions[0]!,
        "⏺ Bash(echo ran > ran.txt)",
        decisions[1]!,
        "TURN ONE DONE",
        "⏺ AskUserQuestion",
        decisions[2]!,
        "SQLite it is",
      ]);
      for (const line of decisions) expect(run.stdout.split(line)).toHaveLength(2);
    } finally {
      writeStreamOf(bundle, original);
    }
  });
});

/** A line of the same byte length that is no event nudge shows. */
function pad(line: string): string {
  const head = '{"type":"padding","x":"';
  return `${head}${"x".repeat(Buffer.byteLength(line) - head.length - 2)}"}`;
}
