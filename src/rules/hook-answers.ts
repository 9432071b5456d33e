/**
 * Rules as claude hooks (control protocol, measured with 2.1.329):
 * - deny, ask, allow answer PreToolUse. deny: the tool does not run and claude gets
 *   "PreToolUse:<tool> hook error: <reason>" as its error result. ask: claude's permission request
 *   follows even where a mode or --allowedTools would have allowed the call (its `decision_reason`
 *   carries our reason). allow: no prompt — but a deny rule in claude's own settings still wins.
 * - note answers PostToolUse, or PostToolUseFailure when the tool returned an error (PostToolUse
 *   does not fire then): the text reaches the model right after the tool result. A note grants
 *   nothing: the call is asked or allowed exactly as without the rule.
 */
import type {
  HookCallbackRequest,
  HookEvent,
  HookRegistration,
  PostToolUseOutput,
  PreToolUseOutput,
} from "../claude/control-protocol.js";
import { decisionRecord, type RuleDecisionRecord } from "./decision-record.js";
import { callDetail } from "./tool-input.js";
import { evaluate, type RuleDecision, type ToolCall } from "./evaluate.js";
import type { RuleSet } from "./parse-rules.js";

export const CALLBACK_IDS = {
  PreToolUse: "nudge-rules-pre-tool-use",
  PostToolUse: "nudge-rules-post-tool-use",
  PostToolUseFailure: "nudge-rules-post-tool-use-failure",
} as const satisfies Record<HookEvent, string>;

/**
 * The hooks to register for a rule set: only the tools its rules can match, so claude does not
 * call back for every Read. Empty when there are no rules (then send no hooks at all).
 */
export function hookRegistration(rules: RuleSet): HookRegistration {
  const toolsOf = (pick: (action: string) => boolean) => [
    ...new Set(rules.rules.filter((r) => pick(r.action)).flatMap((r) => r.tools)),
  ];
  const registration: HookRegistration = {};
  const decided = toolsOf((a) => a !== "note");
  const noted = toolsOf((a) => a === "note");
  if (decided.length)
    registration.PreToolUse = [{ matcher: toolMatcher(decided), hookCallbackIds: [CALLBACK_IDS.PreToolUse] }];
  if (noted.length) {
    registration.PostToolUse = [{ matcher: toolMatcher(noted), hookCallbackIds: [CALLBACK_IDS.PostToolUse] }];
    registration.PostToolUseFailure = [
      { matcher: toolMatcher(noted), hookCallbackIds: [CALLBACK_IDS.PostToolUseFailure] },
    ];
  }
  return registration;
}

/** claude tests the matcher as a regex on the tool name: anchor it, and escape names (MCP tools have '-' and '.'). */
export function toolMatcher(tools: readonly string[]): string {
  return `^(?:${tools.map((t) => t.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")).join("|")})$`;
}

/** What claude receives when a deny rule stops a call: it must read as the project's rule, not a glitch to retry. */
function denyReason(decision: RuleDecision): string {
  return `Blocked by the project's rule "${decision.rule.id}": ${decision.message}`;
}

function noteText(decision: RuleDecision): string {
  return `Note from the project's rule "${decision.rule.id}": ${decision.message}`;
}

/**
 * The text claude 2.1.329 puts in front of the model for a decision, exactly as measured: the
 * error result of a denied call, or the context line after a noted call's result. For display
 * (`nudge rules test`); nudge sends only the outputs below.
 */
export function whatClaudeReceives(decision: RuleDecision, toolName: string): string | null {
  if (decision.action === "deny") return `PreToolUse:${toolName} hook error: ${denyReason(decision)}`;
  if (decision.action === "note") return `PostToolUse:${toolName} hook additional context: ${noteText(decision)}`;
  return null;
}

/** The PreToolUse answer. No decision (no rule, or a note) leaves the call to claude's own permissions. */
export function preToolUseOutput(decision: RuleDecision | null): PreToolUseOutput {
  const none: PreToolUseOutput = { hookSpecificOutput: { hookEventName: "PreToolUse" } };
  if (!decision) return none;
  const id = decision.rule.id;
  switch (decision.action) {
    case "deny":
      return {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: denyReason(decision),
        },
      };
    case "ask":
      return {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "ask",
          permissionDecisionReason: decision.message ? `rule ${id}: ${decision.message}` : `rule ${id}`,
        },
      };
    case "allow":
      return {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "allow",
          permissionDecisionReason: decision.message
            ? `allowed by rule ${id}: ${decision.message}`
            : `allowed by rule ${id}`,
        },
      };
    case "note":
      return none;
  }
}

/** The PostToolUse / PostToolUseFailure answer: a note's text, or nothing. */
export function postToolUseOutput(
  decision: RuleDecision | null,
  event: "PostToolUse" | "PostToolUseFailure" = "PostToolUse",
): PostToolUseOutput {
  if (decision?.action !== "note") return { hookSpecificOutput: { hookEventName: event } };
  return { hookSpecificOutput: { hookEventName: event, additionalContext: noteText(decision) } };
}

export interface HookAnswer {
  /** The `response` of the control_response to send back. */
  output: PreToolUseOutput | PostToolUseOutput | Record<string, never>;
  /** Set when a rule took effect at this event (deny/ask/allow before the call, note after it): record it. */
  record: RuleDecisionRecord | null;
}

/**
 * Answer one `hook_callback` request. Total: an event or tool it does not know gets an answer
 * that changes nothing, so a newer claude never breaks a session.
 */
export function answerHook(rules: RuleSet, input: HookCallbackRequest["input"], repoRoot: string): HookAnswer {
  const event = input.hook_event_name;
  const call: ToolCall = {
    toolName: input.tool_name ?? "",
    input: input.tool_input ?? {},
    cwd: input.cwd ?? repoRoot,
    repoRoot,
  };
  const decision = evaluate(rules, call);
  const toolUseId = input.tool_use_id ?? null;
  if (event === "PreToolUse") {
    const acts = decision !== null && decision.action !== "note";
    return { output: preToolUseOutput(decision), record: acts ? decisionRecord(decision, call, toolUseId) : null };
  }
  if (event === "PostToolUse" || event === "PostToolUseFailure") {
    const acts = decision?.action === "note";
    return {
      output: postToolUseOutput(decision, event),
      record: acts ? decisionRecord(decision, call, toolUseId) : null,
    };
  }
  return { output: {}, record: null };
}

/** Our own reasons and notes, read back: `<rule id>` then the message, if any. */
const ANSWERS: Array<{ action: RuleDecisionRecord["action"]; text: RegExp }> = [
  { action: "deny", text: /^Blocked by the project's rule "([^"]+)": ([\s\S]*)$/ },
  { action: "ask", text: /^rule ([A-Za-z0-9][A-Za-z0-9_.-]*)(?:: ([\s\S]*))?$/ },
  { action: "allow", text: /^allowed by rule ([A-Za-z0-9][A-Za-z0-9_.-]*)(?:: ([\s\S]*))?$/ },
  { action: "note", text: /^Note from the project's rule "([^"]+)": ([\s\S]*)$/ },
];

/**
 * The rule decision an answer carried, read back from the `hook_callback` request (in claude's
 * stream) and nudge's answer to it (in input.jsonl): how a replay shows what a rule decided. The
 * inverse of the outputs above, kept beside them so the two cannot drift apart. Null for an
 * answer that decided nothing.
 */
export function decisionFromAnswer(
  input: HookCallbackRequest["input"],
  answer: unknown,
  repoRoot: string,
): RuleDecisionRecord | null {
  const out = (
    answer as {
      hookSpecificOutput?: {
        permissionDecision?: unknown;
        permissionDecisionReason?: unknown;
        additionalContext?: unknown;
      };
    } | null
  )?.hookSpecificOutput;
  if (!out) return null;
  const text =
    typeof out.permissionDecisionReason === "string"
      ? out.permissionDecisionReason
      : typeof out.additionalContext === "string"
        ? out.additionalContext
        : null;
  const wanted = typeof out.permissionDecision === "string" ? out.permissionDecision : "note";
  const kind = ANSWERS.find((a) => a.action === wanted);
  const found = text === null || !kind ? null : kind.text.exec(text);
  if (!kind || !found) return null;
  const call: ToolCall = {
    toolName: input.tool_name ?? "",
    input: input.tool_input ?? {},
    cwd: input.cwd ?? repoRoot,
    repoRoot,
  };
  return {
    rule: found[1]!,
    action: kind.action,
    tool: call.toolName,
    toolUseId: input.tool_use_id ?? null,
    detail: callDetail(call),
    message: found[2] ?? null,
  };
}
