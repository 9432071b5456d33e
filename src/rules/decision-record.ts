/**
 * "A rule decided this": what the session bundle keeps for every rule decision, and what replay
 * shows. The recorder adds where it happened (turn, time); this is the decision itself.
 */
import * as z from "../base/zod.js";
import type { RuleDecision } from "./evaluate.js";
import { RULE_ACTIONS } from "./rules-schema.js";
import { callDetail, type ToolCall } from "./tool-input.js";

const RuleDecisionRecordSchema = z.object({
  rule: z.string().check(z.describe("the rule's id")),
  action: z.enum(RULE_ACTIONS),
  tool: z.string().check(z.describe("the tool claude called: Bash, Write, …")),
  toolUseId: z
    .nullable(z.string())
    .check(z.describe("claude's tool_use id, linking the decision to the call in conversation.jsonl")),
  detail: z
    .string()
    .check(z.describe("one line: the command, the file path (relative to the repository root), or the input as JSON")),
  message: z
    .nullable(z.string())
    .check(z.describe("the rule's message: what claude was told (deny, note) or the user was shown (ask)")),
});
export type RuleDecisionRecord = z.infer<typeof RuleDecisionRecordSchema>;

export function decisionRecord(decision: RuleDecision, call: ToolCall, toolUseId: string | null): RuleDecisionRecord {
  return {
    rule: decision.rule.id,
    action: decision.action,
    tool: call.toolName,
    toolUseId,
    detail: callDetail(call),
    message: decision.message,
  };
}

const VERBS: Record<RuleDecisionRecord["action"], string> = {
  deny: "denied",
  ask: "asked about",
  allow: "allowed",
  note: "noted on",
};

/** One plain line for replay and show: `rule no-npm denied Bash(npm install): use pnpm`. */
export function describeRecord(record: RuleDecisionRecord): string {
  const message = record.message === null ? "" : `: ${record.message.replace(/\s+/g, " ").trim()}`;
  return `rule ${record.rule} ${VERBS[record.action]} ${record.tool}(${record.detail})${message}`;
}
