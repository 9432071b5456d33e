/**
 * The renderer with `--include-partial-messages`, on a stream recorded from the real claude
 * (fixtures/streams/partial-messages.*, made by record-partial-stream.ts) and on lines shaped like
 * it: text as it is typed and shown once, thinking only with -v, each tool call once, subagents'
 * start and end, and the user's decisions once though claude echoes them.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseTimes, type TimedLine } from "../../src/store/conversation-reader.js";
import { parseLine, splitLines } from "../../src/claude/ndjson.js";
import { toStreamEvent } from "../../src/claude/stream-events.js";
import { EventRenderer } from "../../src/terminal/event-renderer.js";
import { inputLines, mergeInput } from "../../src/store/input-merge.js";
import { play } from "../../src/terminal/replay-player.js";
import { makeStyle } from "../../src/terminal/style.js";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/streams");
const read = (name: string) => readFileSync(path.join(fixtures, name));
const CWD = "/repo";

function renderer(o: { verbose?: boolean; color?: boolean; cwd?: string; showPrompts?: boolean } = {}) {
  let out = "";
  const r = new EventRenderer({
    style: makeStyle(o.color ?? false),
    write: (t) => void (out += t),
    verbose: o.verbose ?? false,
    showPrompts: o.showPrompts ?? true,
    cwd: o.cwd ?? CWD,
    notice: () => undefined,
  });
  return {
    feed: (...lines: Array<object | Buffer>) => {
      for (const line of lines) {
        const json = Buffer.isBuffer(line) ? parseLine(line) : line;
        r.render(toStreamEvent(json, ""));
      }
    },
    out: () => out,
  };
}

function recorded(o: { verbose?: boolean; color?: boolean } = {}) {
  const lines = splitLines(read("partial-messages.jsonl"));
  const cwd = (parseLine(lines[0]!) as { cwd: string }).cwd;
  const r = renderer({ ...o, cwd });
  r.feed(...lines);
  return r.out();
}

const stream = (event: object, parent: string | null = null) => ({
  type: "stream_event",
  event,
  parent_tool_use_id: parent,
});
const delta = (index: number, d: object, parent: string | null = null) =>
  stream({ type: "content_block_delta", index, delta: d }, parent);
const assistant = (id: string, content: object[], parent: string | null = null) => ({
  type: "assistant",
  message: { id, content },
  parent_tool_use_id: parent,
});

describe("a stream with partial messages, recorded from the real claude", () => {
  it("shows each text once, each tool call once, the subagent's start and end, and the decisions", () => {
    expect(recorded()).toBe(
      [
        "› Create hello.txt with a greeting",
        "I'll create hello.txt with a short greeting.",
        "⏺ Write(hello.txt)",
        "✓ allowed Write(hello.txt)",
        "Created hello.txt with two lines:",
        "",
        "- a greeting",
        "- a second line",
        "› Use a subagent to survey the repository",
        "⏺ Agent(Survey the repository)",
        "  ⎿ subagent done: Survey the repository · 379ms",
        "The subagent found two files: hello.txt and notes.txt.",
        "› Clean the build folder",
        "⏺ Bash(rm -rf build)",
        "✗ denied Bash(rm -rf build): not now, the build is still needed",
        "Understood, I left the build folder alone.",
        "› Set up a database",
        "⏺ AskUserQuestion(Which database should I use?)",
        '? answered "Which database should I use?" = SQLite',
        "SQLite it is.",
        "",
      ].join("\n"),
    );
  });

  it("shows thinking only with -v, dimmed", () => {
    const thinking = "The user wants a greeting file. I will write it with the Write tool.";
    expect(recorded()).not.toContain("greeting file");
    const verbose = recorded({ verbose: true, color: true });
    expect(verbose).toContain(`\u001b[2m✻ \u001b[22m\u001b[2m${thinking.slice(0, 12)}`);
    expect(verbose.replace(/\u001b\[\d+m/g, "")).toContain(`✻ ${thinking}\n`);
  });
});

describe("streamed text", () => {
  it("appears as it is typed, and not again when the whole assistant line comes", () => {
    const r = renderer();
    r.feed(
      stream({ type: "message_start", message: { id: "m1" } }),
      stream({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    );
    r.feed(delta(0, { type: "text_delta", text: "Hello " }));
    expect(r.out()).toBe("Hello");
    r.feed(delta(0, { type: "text_delta", text: "world.\n\n" }));
    expect(r.out()).toBe("Hello world."); // trailing whitespace held back: the block may be over
    r.feed(
      assistant("m1", [{ type: "text", text: "Hello world.\n\n" }]),
      stream({ type: "content_block_stop", index: 0 }),
    );
    expect(r.out()).toBe("Hello world.\n");
  });

  it("shows a tool call once, whichever of its block's end and its assistant line comes first", () => {
    const r = renderer();
    const toolStart = stream({
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "t1", name: "Read", input: {} },
    });
    r.feed(
      stream({ type: "message_start", message: { id: "m1" } }),
      toolStart,
      delta(0, { type: "input_json_delta", partial_json: '{"file_path":"/repo/' }),
    );
    expect(r.out()).toBe(""); // input not known yet
    r.feed(
      delta(0, { type: "input_json_delta", partial_json: 'a.txt"}' }),
      stream({ type: "content_block_stop", index: 0 }),
    );
    expect(r.out()).toBe("⏺ Read(a.txt)\n");
    r.feed(assistant("m1", [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "/repo/a.txt" } }]));
    expect(r.out()).toBe("⏺ Read(a.txt)\n");
  });

  it("closes a line cut short by an interrupt before the next line", () => {
    const r = renderer();
    r.feed(
      stream({ type: "message_start", message: { id: "m1" } }),
      stream({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    );
    r.feed(delta(0, { type: "text_delta", text: "I was say" }));
    r.feed({ type: "result", subtype: "error_during_execution", is_error: true, terminal_reason: "aborted_streaming" });
    expect(r.out()).toBe("I was say\n⏸ turn interrupted\n");
  });

  it("does not stream a subagent's typing; its own messages show, dimmed and indented, only with -v", () => {
    const lines = [
      assistant("m0", [
        {
          type: "tool_use",
          id: "agent1",
          name: "Task",
          input: { description: "Find the bug", prompt: "look", subagent_type: "general-purpose" },
        },
      ]),
      stream({ type: "message_start", message: { id: "s1" } }, "agent1"),
      stream({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "agent1"),
      delta(0, { type: "text_delta", text: "inner words" }, "agent1"),
      assistant("s1", [{ type: "text", text: "inner words" }], "agent1"),
      {
        type: "user",
        message: { content: [{ type: "tool_result", tool_use_id: "agent1", content: "found it" }] },
        parent_tool_use_id: null,
      },
    ];
    const quiet = renderer();
    quiet.feed(...lines);
    expect(quiet.out()).toBe("⏺ Task(Find the bug)\n  ⎿ subagent done: Find the bug\n");
    const verbose = renderer({ verbose: true });
    verbose.feed(...lines);
    expect(verbose.out()).toContain("  │ inner words\n");
    expect(verbose.out().match(/inner words/g)).toHaveLength(1);
  });

  it("ends a background subagent at its notification, not at the 'launched' tool result", () => {
    const r = renderer();
    r.feed(
      assistant("m0", [
        { type: "tool_use", id: "agent1", name: "Agent", input: { description: "Survey", prompt: "look" } },
      ]),
      { type: "system", subtype: "task_started", tool_use_id: "agent1", description: "Survey", is_backgrounded: true },
      {
        type: "user",
        message: {
          content: [{ type: "tool_result", tool_use_id: "agent1", content: "Async agent launched successfully." }],
        },
      },
    );
    expect(r.out()).toBe("⏺ Agent(Survey)\n");
    r.feed({
      type: "system",
      subtype: "task_notification",
      tool_use_id: "agent1",
      status: "failed",
      usage: { duration_ms: 2500 },
    });
    expect(r.out()).toBe("⏺ Agent(Survey)\n  ⎿ subagent failed: Survey · 2.5s\n");
  });
});

describe("decision lines", () => {
  const request = (id: string, tool: string, input: object, extra = {}) => ({
    type: "control_request",
    request_id: id,
    request: { subtype: "can_use_tool", tool_name: tool, input, tool_use_id: `tu_${id}`, ...extra },
  });
  const response = (id: string, answer: object) => ({
    type: "control_response",
    response: { subtype: "success", request_id: id, response: answer },
  });

  it("says what was decided, once per request though claude echoes the answer", () => {
    const r = renderer();
    r.feed(
      request("r1", "Bash", { command: "echo hi" }),
      response("r1", { behavior: "allow", updatedInput: { command: "echo hi" } }),
    );
    r.feed(response("r1", { behavior: "allow", updatedInput: { command: "echo hi" } })); // the echo
    r.feed(
      request("r2", "Bash", { command: "npm test" }),
      response("r2", {
        behavior: "allow",
        updatedInput: {},
        updatedPermissions: [
          {
            type: "addRules",
            rules: [{ toolName: "Bash", ruleContent: "npm test" }],
            behavior: "allow",
            destination: "session",
          },
        ],
      }),
    );
    r.feed(
      request("r3", "Bash", { command: "npm run lint" }),
      response("r3", {
        behavior: "allow",
        updatedInput: {},
        updatedPermissions: [
          {
            type: "addRules",
            rules: [{ toolName: "Bash", ruleContent: "npm run lint:*" }],
            behavior: "allow",
            destination: "localSettings",
          },
        ],
      }),
    );
    r.feed(
      request("r4", "Edit", { file_path: "/repo/src/a.ts", old_string: "a", new_string: "b" }),
      response("r4", { behavior: "deny", message: "use the helper instead" }),
    );
    r.feed(
      request("r5", "AskUserQuestion", { questions: [{ question: "Which db?", options: [] }] }),
      response("r5", { behavior: "allow", updatedInput: { questions: [], answers: { "Which db?": "SQLite" } } }),
    );
    r.feed(request("r6", "ExitPlanMode", {}), response("r6", { behavior: "allow", updatedInput: {} }));
    r.feed(request("r7", "ExitPlanMode", {}), response("r7", { behavior: "deny", message: "test first" }));
    // claude acknowledging an interrupt is no decision.
    r.feed({ type: "control_response", response: { subtype: "success", request_id: "int1", response: {} } });
    expect(r.out()).toBe(
      [
        "✓ allowed Bash(echo hi)",
        "✓ allowed Bash(npm test) · for this session: rule Bash(npm test)",
        "✓ allowed Bash(npm run lint) · saved for every session: rule Bash(npm run lint:*) in .claude/settings.local.json",
        "✗ denied Edit(src/a.ts): use the helper instead",
        '? answered "Which db?" = SQLite',
        "✓ plan approved",
        "✗ kept planning: test first",
        "",
      ].join("\n"),
    );
  });
});

describe("replay of a stream with partial messages and what nudge wrote", () => {
  const conversation = (): TimedLine[] => {
    const times = parseTimes(read("partial-messages.timing.txt").toString());
    return splitLines(read("partial-messages.jsonl")).map((bytes, n) => ({ n, bytes, at: times[n] ?? null }));
  };
  const input = () =>
    inputLines(read("partial-messages.input.jsonl"), read("partial-messages.input-timing.txt").toString());

  it("puts each line nudge wrote between the request it answers and claude's echo of it", () => {
    const [group] = mergeInput([{ turn: null, pending: null, lines: conversation() }], input());
    const kinds = group!.lines.map((l) => {
      const j = parseLine(l.bytes) as { type: string };
      return `${"input" in l ? "in:" : ""}${j.type}`;
    });
    expect(kinds.filter((k) => k.startsWith("in:"))).toHaveLength(input().length);
    // Each answer: after its request, before the echo.
    for (const [i, k] of kinds.entries()) {
      if (k !== "in:control_response") continue;
      expect(kinds.slice(0, i).lastIndexOf("control_request")).toBeGreaterThan(
        kinds.slice(0, i).lastIndexOf("control_response"),
      );
      expect(kinds[i + 1]).toBe("control_response");
    }
    // Each prompt nudge wrote comes before claude's replay of it.
    const firstPrompt = kinds.indexOf("in:user");
    expect(firstPrompt).toBeLessThan(kinds.indexOf("user"));
  });

  it("plays each text and each decision once, paced by when they arrived", async () => {
    let out = "";
    const sleeps: number[] = [];
    const cwd = (parseLine(conversation()[0]!.bytes) as { cwd: string }).cwd;
    const renderer = new EventRenderer({
      style: makeStyle(false),
      write: (t) => void (out += t),
      verbose: false,
      showPrompts: true,
      cwd,
      notice: () => undefined,
    });
    const groups = mergeInput([{ turn: null, pending: null, lines: conversation() }], input());
    await play({
      groups,
      renderer,
      style: makeStyle(false),
      write: (t) => void (out += t),
      pacing: { speed: 1, idleLimitMs: 2000, realTime: true },
      sleep: async (ms) => void sleeps.push(ms),
      signal: new AbortController().signal,
    });
    expect(out).toBe(recorded());
    // Streamed text plays at its typing pace: many short pauses, no single long wait per message.
    expect(sleeps.filter((ms) => ms > 20 && ms < 100).length).toBeGreaterThan(20);
  });
});
