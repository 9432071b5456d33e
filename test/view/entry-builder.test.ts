/**
 * Lines a recording of this claude version does not make on demand (a subagent's, an answered
 * AskUserQuestion, a rule's decision, a newer claude's unknown line, a damaged or huge line), in
 * the shapes claude and nudge write them (see conversation.jsonl / input.jsonl of any recording).
 */
import { describe, expect, it } from "vitest";
import type { PlayLine } from "../../src/store/input-merge.js";
import { buildEntries } from "../../src/view/entry-builder.js";
import { CLIP_CHARS } from "../../src/view/clip.js";

const line = (json: unknown, input?: true): PlayLine => ({
  n: 0,
  bytes: Buffer.from(JSON.stringify(json)),
  at: null,
  ...(input && { input }),
});
const options = { full: false, cwd: "/repo", repoRoot: "/repo", prompt: "go", live: false };
const assistant = (content: unknown[], parent: string | null = null) =>
  line({ type: "assistant", parent_tool_use_id: parent, message: { id: "m", content } });
const result = (id: string, content: unknown, parent: string | null = null) =>
  line({
    type: "user",
    parent_tool_use_id: parent,
    message: { content: [{ type: "tool_result", tool_use_id: id, content }] },
  });

describe("entries", () => {
  it("from QA: claude's '[Request interrupted by user]' is the turn's interruption, said once, not a prompt", () => {
    const entries = buildEntries(
      [
        assistant([{ type: "text", text: "Thinking it over…" }]),
        line({
          type: "user",
          message: { role: "user", content: [{ type: "text", text: "[Request interrupted by user]" }] },
        }),
        line({
          type: "result",
          subtype: "error_during_execution",
          is_error: true,
          terminal_reason: "aborted_streaming",
        }),
      ],
      options,
    );
    expect(entries).toEqual([
      { kind: "prompt", text: "go" },
      { kind: "text", markdown: "Thinking it over…", parent: null },
      { kind: "notice", level: "warn", text: "turn interrupted" },
    ]);
    const forTool = buildEntries(
      [line({ type: "user", message: { role: "user", content: "[Request interrupted by user for tool use]" } })],
      options,
    );
    expect(forTool.at(-1)).toEqual({ kind: "notice", level: "warn", text: "turn interrupted" });
  });

  it("a subagent's words and tool calls are nested under the Task call that ran it", () => {
    const entries = buildEntries(
      [
        assistant([{ type: "tool_use", id: "task1", name: "Task", input: { description: "survey" } }]),
        assistant([{ type: "tool_use", id: "ls1", name: "Bash", input: { command: "ls" } }], "task1"),
        result("ls1", "a.txt", "task1"),
        assistant([{ type: "text", text: "found a.txt" }], "task1"),
        result("task1", [{ type: "text", text: "the report" }]),
      ],
      options,
    );
    expect(entries.map((e) => e.kind)).toEqual(["prompt", "tool"]);
    const task = entries[1] as Extract<(typeof entries)[number], { kind: "tool" }>;
    expect(task.result?.content.text).toBe("the report");
    expect(task.children).toMatchObject([
      { kind: "tool", name: "Bash", detail: "ls", parent: "task1", result: { content: { text: "a.txt" } } },
      { kind: "text", markdown: "found a.txt", parent: "task1" },
    ]);
  });

  it("an AskUserQuestion and the answer nudge wrote; a rule's decision from nudge's answer to claude's hook call", () => {
    const question = {
      question: "Which database?",
      header: "DB",
      options: [{ label: "SQLite" }, { label: "PostgreSQL" }],
    };
    const entries = buildEntries(
      [
        line({
          type: "control_request",
          request_id: "q1",
          request: { subtype: "can_use_tool", tool_name: "AskUserQuestion", input: { questions: [question] } },
        }),
        line(
          {
            type: "control_response",
            response: {
              subtype: "success",
              request_id: "q1",
              response: {
                behavior: "allow",
                updatedInput: { questions: [question], answers: { "Which database?": "SQLite" } },
              },
            },
          },
          true,
        ),
        line({
          type: "control_request",
          request_id: "h1",
          request: {
            subtype: "hook_callback",
            callback_id: "nudge-rules-pre-tool-use",
            input: {
              hook_event_name: "PreToolUse",
              tool_name: "Bash",
              tool_input: { command: "npm install" },
              tool_use_id: "t1",
              cwd: "/repo",
            },
          },
        }),
        line(
          {
            type: "control_response",
            response: {
              subtype: "success",
              request_id: "h1",
              response: {
                hookSpecificOutput: {
                  hookEventName: "PreToolUse",
                  permissionDecision: "deny",
                  permissionDecisionReason: 'Blocked by the project\'s rule "no-npm": use pnpm',
                },
              },
            },
          },
          true,
        ),
      ],
      options,
    );
    expect(entries.slice(1)).toEqual([
      { kind: "question", questions: ["Which database?"], answers: ["SQLite"] },
      { kind: "rule", rule: "no-npm", decision: "deny", tool: "Bash", detail: "npm install", message: "use pnpm" },
    ]);
  });

  it("a line of a kind nudge does not know is raw; invalid UTF-8 and ANSI escapes are shown, a 10 MB line clipped", () => {
    const huge = {
      type: "user",
      message: { content: [{ type: "tool_result", tool_use_id: "t", content: "y".repeat(10 * 1024 * 1024) }] },
    };
    const entries = buildEntries(
      [
        line({ type: "brand_new_kind", text: "\u001b[31mred\u001b[0m \u202eevil" }),
        {
          n: 1,
          bytes: Buffer.concat([
            Buffer.from('{"type":"assistant" '),
            Buffer.from([0xff, 0xfe]),
            Buffer.from(" broken"),
          ]),
          at: null,
        },
        assistant([{ type: "tool_use", id: "t", name: "Bash", input: { command: "yes" } }]),
        line(huge),
      ],
      options,
    );
    expect(entries[1]).toEqual({
      kind: "raw",
      line: {
        text: '{"type":"brand_new_kind","text":"\\u001b[31mred\\u001b[0m \\u202eevil"}',
        length: expect.any(Number) as number,
      },
    });
    expect(JSON.stringify(entries)).not.toContain("\u202e"); // a bidi override arrives as a visible escape
    expect(entries[2]).toMatchObject({ kind: "raw", line: { text: '{"type":"assistant" \ufffd\ufffd broken' } });
    const tool = entries[3] as Extract<(typeof entries)[number], { kind: "tool" }>;
    expect(tool.result!.content.text.length).toBe(CLIP_CHARS);
    expect(tool.result!.content.length).toBeGreaterThan(CLIP_CHARS);
  });

  it("text streamed in a turn in flight shows before its assistant line; a saved turn ignores the deltas", () => {
    const stream = (event: unknown) => line({ type: "stream_event", event });
    const lines = [
      stream({ type: "message_start", message: { id: "m1" } }),
      stream({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      stream({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Half " } }),
      stream({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "written" } }),
    ];
    expect(buildEntries(lines, { ...options, live: true }).at(-1)).toEqual({
      kind: "text",
      markdown: "Half written",
      parent: null,
    });
    expect(buildEntries(lines, options).map((e) => e.kind)).toEqual(["prompt"]);
    const whole = [...lines, assistant([{ type: "text", text: "Half written." }])];
    expect(buildEntries(whole, { ...options, live: true }).slice(1)).toEqual([
      { kind: "text", markdown: "Half written.", parent: null },
    ]);
  });

  it("a turn of claude's own UI, from its transcript: the conversation shows, its bookkeeping records and caveats do not, a slash command is a mark", () => {
    const sessionId = "4e0c5a52-0000-4000-8000-000000000001";
    const entries = buildEntries(
      [
        line({ type: "mode", mode: "default", sessionId }),
        line({ type: "file-history-snapshot", messageId: "m1", snapshot: {}, isSnapshotUpdate: false }),
        line({
          parentUuid: null,
          isSidechain: false,
          type: "user",
          message: { role: "user", content: "go" },
          uuid: "u1",
          sessionId,
        }),
        line({ parentUuid: "u1", isSidechain: false, attachment: { type: "todo" }, type: "attachment", uuid: "a1" }),
        line({ type: "api-request-blob", sessionId, hash: "h", message: { role: "system", content: "# Environment" } }),
        line({
          parentUuid: "u1",
          type: "assistant",
          message: { id: "m", role: "assistant", content: [{ type: "text", text: "done" }] },
          uuid: "a2",
          sessionId,
        }),
        line({ parentUuid: "a2", type: "system", subtype: "turn_duration", durationMs: 800, uuid: "s1", sessionId }),
        line({
          parentUuid: "s1",
          type: "user",
          isMeta: true,
          message: {
            role: "user",
            content: "Caveat: the messages below were generated by the user while running local commands.",
          },
          uuid: "u2",
          sessionId,
        }),
        line({
          parentUuid: "u2",
          type: "user",
          message: {
            role: "user",
            content:
              "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>",
          },
          uuid: "u3",
          sessionId,
        }),
        line({ type: "cost-state", sessionId, totalCostUSD: 0 }),
      ],
      options,
    );
    expect(entries).toEqual([
      { kind: "prompt", text: "go" },
      { kind: "text", markdown: "done", parent: null },
      { kind: "mark", text: "/model" },
    ]);
  });
});
