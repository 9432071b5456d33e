/** What nudge answers claude's hook callbacks with, and which callbacks it asks claude for. */
import { describe, expect, it } from "vitest";
import {
  answerHook,
  CALLBACK_IDS,
  hookRegistration,
  postToolUseOutput,
  preToolUseOutput,
  toolMatcher,
} from "../../src/rules/hook-answers.js";
import { evaluate } from "../../src/rules/evaluate.js";
import { describeRecord } from "../../src/rules/decision-record.js";
import { NO_RULES } from "../../src/rules/load-rules.js";
import { parseRules } from "../../src/rules/parse-rules.js";

const ROOT = "/home/ana/app";
const RULES = parseRules(
  `version: 1
rules:
  - id: no-npm
    match: { command: '\\bnpm\\b' }
    action: deny
    message: Use pnpm.
  - id: ask-push
    match: { command: 'git push' }
    action: ask
    message: Pushing publishes the branch.
  - id: tests-ok
    match: { command: '^pnpm test' }
    action: allow
  - id: typed
    match: { path: 'src/**', content: 'any' }
    action: note
    message: Avoid any.
  - id: gh
    match: { tool: mcp__git-hub__create.issue }
    action: ask
`,
  ".nudge/rules.yaml",
);
const bash = (command: string) => evaluate(RULES, { toolName: "Bash", input: { command }, cwd: ROOT, repoRoot: ROOT });

describe("hookRegistration", () => {
  it("asks claude to call back only for the tools the rules can match, notes after the call (success or failure)", () => {
    const registration = hookRegistration(RULES);
    expect(registration).toEqual({
      PreToolUse: [
        { matcher: "^(?:Bash|mcp__git\\-hub__create\\.issue)$", hookCallbackIds: [CALLBACK_IDS.PreToolUse] },
      ],
      PostToolUse: [
        { matcher: "^(?:Write|Edit|MultiEdit|NotebookEdit)$", hookCallbackIds: [CALLBACK_IDS.PostToolUse] },
      ],
      PostToolUseFailure: [
        { matcher: "^(?:Write|Edit|MultiEdit|NotebookEdit)$", hookCallbackIds: [CALLBACK_IDS.PostToolUseFailure] },
      ],
    });
    // claude tests the matcher as a regex on the tool name.
    const pre = new RegExp(registration.PreToolUse![0]!.matcher);
    expect(["Bash", "mcp__git-hub__create.issue"].every((t) => pre.test(t))).toBe(true);
    expect(["Read", "BashOutput", "mcp__git-hub__createXissue", "xBash"].some((t) => pre.test(t))).toBe(false);
  });

  it("registers nothing without rules", () => {
    expect(hookRegistration(NO_RULES)).toEqual({});
  });

  it("escapes every regex character a tool name could hold", () => {
    expect(new RegExp(toolMatcher(["a+b", "c|d", "(e)"])).test("a+b")).toBe(true);
    expect(new RegExp(toolMatcher(["a+b", "c|d", "(e)"])).test("aab")).toBe(false);
    expect(new RegExp(toolMatcher(["c|d"])).test("c")).toBe(false);
  });
});

describe("hook outputs", () => {
  it("deny: claude gets the rule's message, marked as the project's rule", () => {
    expect(preToolUseOutput(bash("npm ci"))).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: 'Blocked by the project\'s rule "no-npm": Use pnpm.',
      },
    });
  });

  it("ask and allow carry the decision and a reason; no rule decides nothing", () => {
    expect(preToolUseOutput(bash("git push"))).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: "rule ask-push: Pushing publishes the branch.",
      },
    });
    expect(preToolUseOutput(bash("pnpm test"))).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        permissionDecisionReason: "allowed by rule tests-ok",
      },
    });
    expect(preToolUseOutput(bash("ls"))).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse" } });
  });

  it("note: no permission decision before the call, the message after it", () => {
    const note = evaluate(RULES, {
      toolName: "Write",
      input: { file_path: `${ROOT}/src/a.ts`, content: "x: any" },
      cwd: ROOT,
      repoRoot: ROOT,
    });
    expect(preToolUseOutput(note)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse" } });
    expect(postToolUseOutput(note)).toEqual({
      hookSpecificOutput: {
        hookEventName: "PostToolUse",
        additionalContext: 'Note from the project\'s rule "typed": Avoid any.',
      },
    });
    expect(postToolUseOutput(note, "PostToolUseFailure").hookSpecificOutput.hookEventName).toBe("PostToolUseFailure");
    expect(postToolUseOutput(bash("npm ci"))).toEqual({ hookSpecificOutput: { hookEventName: "PostToolUse" } });
  });
});

describe("answerHook", () => {
  const input = (event: string, tool: string, toolInput: Record<string, unknown>, cwd: string | undefined = ROOT) => ({
    hook_event_name: event,
    tool_name: tool,
    tool_input: toolInput,
    tool_use_id: "toolu_1",
    ...(cwd === undefined ? {} : { cwd }),
  });

  it("records a deny, ask or allow when claude asks before the call", () => {
    const answer = answerHook(RULES, input("PreToolUse", "Bash", { command: "npm install left-pad" }), ROOT);
    expect(answer.output).toEqual(preToolUseOutput(bash("npm install")));
    expect(answer.record).toEqual({
      rule: "no-npm",
      action: "deny",
      tool: "Bash",
      toolUseId: "toolu_1",
      detail: "npm install left-pad",
      message: "Use pnpm.",
    });
    expect(describeRecord(answer.record!)).toBe("rule no-npm denied Bash(npm install left-pad): Use pnpm.");
    expect(answerHook(RULES, input("PostToolUse", "Bash", { command: "npm install" }), ROOT).record).toBeNull();
  });

  it("records a note when claude reports the call done or failed, with the path relative to the root", () => {
    const toolInput = { file_path: "src/a.ts", old_string: "x", new_string: "y: any" };
    expect(answerHook(RULES, input("PreToolUse", "Edit", toolInput), ROOT).record).toBeNull();
    for (const event of ["PostToolUse", "PostToolUseFailure"]) {
      const answer = answerHook(RULES, input(event, "Edit", toolInput), ROOT);
      expect(answer.output).toMatchObject({
        hookSpecificOutput: { hookEventName: event, additionalContext: expect.stringContaining("Avoid any.") },
      });
      expect(answer.record).toMatchObject({ rule: "typed", action: "note", tool: "Edit", detail: "src/a.ts" });
    }
  });

  it("takes the repository root as cwd when claude sends none, and answers unknown events with nothing", () => {
    expect(
      answerHook(RULES, input("PostToolUse", "Edit", { file_path: "src/a.ts", new_string: "any" }, undefined), ROOT)
        .record?.rule,
    ).toBe("typed");
    expect(answerHook(RULES, { hook_event_name: "UserPromptSubmit" }, ROOT)).toEqual({ output: {}, record: null });
  });
});
