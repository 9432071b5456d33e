/**
 * The hook answers work on the real claude binary (scripted API): registered through
 * `initialize`, a deny stops the tool and the model gets the rule's message; allow skips the
 * prompt; ask prompts; a note reaches the model after the result, also when the tool failed; and
 * claude calls back only for the tools the rules mention. (Wiring into `nudge claude run` is the
 * session loop's; this drives claude directly so it checks the rules layer alone.)
 */
import { execa } from "execa";
import { existsSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { beforeAll, describe, expect, it } from "vitest";
import { HookCallbackRequest } from "../../src/claude/control-protocol.js";
import type { RuleDecisionRecord } from "../../src/rules/decision-record.js";
import { answerHook, hookRegistration } from "../../src/rules/hook-answers.js";
import { parseRules } from "../../src/rules/parse-rules.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { startScriptedApi, type RecordedRequest } from "../support/scripted-api.js";

const RULES = parseRules(
  `version: 1
rules:
  - id: no-npm
    match: { command: '\\bnpm\\b' }
    action: deny
    message: This repository uses pnpm.
  - id: ask-me
    match: { command: '^echo ask-me' }
    action: ask
    message: worth a look
  - id: allow-me
    match: { command: '^echo allowed > allowed\\.txt$' }
    action: allow
  - id: noted
    match: { command: 'noted' }
    action: note
    message: Remember the changelog.
`,
  ".nudge/rules.yaml",
);

const bash = (command: string) => ({ tool: "Bash", input: { command, description: "run it" } });

let repo: string;
let requests: RecordedRequest[];
let hookEvents: string[];
let permissionRequests: Array<Record<string, unknown>>;
let records: RuleDecisionRecord[];

beforeAll(async () => {
  repo = await gitdir();
  const api = await startScriptedApi([
    bash("npm install > npm-ran.txt"),
    bash("echo ask-me > asked.txt"),
    bash("echo allowed > allowed.txt"),
    bash("touch noted.txt"), // not read-only, so claude asks (echo alone it would allow by itself)
    bash("touch noted-fail.txt; exit 3"),
    { tool: "Write", input: { file_path: path.join(repo, "plain.txt"), content: "no rule\n" } },
    { text: "done" },
  ]);
  // The default permission mode: without a rule, every Bash and Write asks.
  const claude = execa(
    CLAUDE_BIN,
    [
      "-p",
      "--verbose",
      "--input-format",
      "stream-json",
      "--output-format",
      "stream-json",
      "--permission-prompt-tool",
      "stdio",
    ],
    {
      cwd: repo,
      env: claudeEnv(api, tempDir()),
      reject: false,
      timeout: 60_000,
    },
  );
  const send = (line: object) => claude.stdin!.write(JSON.stringify(line) + "\n");
  hookEvents = [];
  permissionRequests = [];
  records = [];
  send({
    type: "control_request",
    request_id: "init",
    request: { subtype: "initialize", hooks: hookRegistration(RULES) },
  });
  send({ type: "user", message: { role: "user", content: "go" } });
  for await (const line of readline.createInterface({ input: claude.stdout! })) {
    const event = JSON.parse(line);
    if (event.type === "result") break;
    if (event.type !== "control_request") continue;
    const respond = (response: object) =>
      send({ type: "control_response", response: { subtype: "success", request_id: event.request_id, response } });
    if (event.request.subtype === "hook_callback") {
      const request = HookCallbackRequest.parse(event.request);
      hookEvents.push(`${request.input.hook_event_name} ${request.input.tool_name}`);
      const answer = answerHook(RULES, request.input, repo);
      if (answer.record) records.push(answer.record);
      respond(answer.output);
    } else if (event.request.subtype === "can_use_tool") {
      permissionRequests.push(event.request);
      respond({ behavior: "allow", updatedInput: event.request.input });
    }
  }
  claude.stdin!.end();
  await claude;
  requests = api.mainLoopRequests();
  await api.close();
}, 90_000);

/** The blocks the model received in the request after the n-th tool call (1-based). */
const sentAfter = (n: number) =>
  requests[n]!.body.messages.slice(-2).flatMap((m: { content: unknown }) =>
    Array.isArray(m.content) ? m.content : [],
  );

describe("rules on the real claude", () => {
  it("deny: the command never runs and the model gets the rule's message as the error result", () => {
    expect(existsSync(path.join(repo, "npm-ran.txt"))).toBe(false);
    expect(sentAfter(1)).toContainEqual(
      expect.objectContaining({
        type: "tool_result",
        is_error: true,
        content: `PreToolUse:Bash hook error: Blocked by the project's rule "no-npm": This repository uses pnpm.`,
      }),
    );
  });

  it("ask: claude asks for permission, naming the rule, and the answer decides", () => {
    expect(
      permissionRequests.find((r) => (r.input as { command?: string }).command?.startsWith("echo ask-me")),
    ).toMatchObject({
      decision_reason: "rule ask-me: worth a look",
      decision_reason_type: "hook",
    });
    expect(existsSync(path.join(repo, "asked.txt"))).toBe(true);
  });

  it("allow: runs without a permission request, where claude would otherwise ask", () => {
    expect(permissionRequests.some((r) => (r.input as { command?: string }).command?.startsWith("echo allowed"))).toBe(
      false,
    );
    expect(existsSync(path.join(repo, "allowed.txt"))).toBe(true);
    // The Write had no rule: claude's own prompt asked for it as usual.
    expect(permissionRequests.map((r) => r.tool_name)).toContain("Write");
  });

  it("note: the model gets the message right after the result, when the command succeeded and when it failed", () => {
    // claude may append its own reminders to the same text block.
    const note = (event: string) =>
      expect.objectContaining({
        type: "text",
        text: expect.stringMatching(
          new RegExp(
            `^${event}:Bash hook additional context: Note from the project's rule "noted": Remember the changelog\\.`,
          ),
        ),
      });
    expect(sentAfter(4)).toContainEqual(note("PostToolUse"));
    expect(sentAfter(5)).toContainEqual(expect.objectContaining({ type: "tool_result", is_error: true }));
    expect(sentAfter(5)).toContainEqual(note("PostToolUseFailure"));
    // Notes grant nothing: the noted commands were asked about like any other.
    expect(permissionRequests.filter((r) => (r.input as { command?: string }).command?.includes("noted"))).toHaveLength(
      2,
    );
  });

  it("claude calls back only for the tools the rules mention, and every decision is recorded", () => {
    expect(hookEvents.every((e) => e.endsWith(" Bash"))).toBe(true);
    expect(records.map((r) => `${r.rule} ${r.action} ${r.detail}`)).toEqual([
      "no-npm deny npm install > npm-ran.txt",
      "ask-me ask echo ask-me > asked.txt",
      "allow-me allow echo allowed > allowed.txt",
      "noted note touch noted.txt",
      "noted note touch noted-fail.txt; exit 3",
    ]);
  });
});
