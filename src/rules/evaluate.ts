/**
 * Which rule decides a tool call: the first one, in file order, whose every match field matches.
 * Pure and total — it never throws, because an error answer to claude's PreToolUse hook makes
 * claude run the tool as if no rule existed (measured with 2.1.329).
 */
import type { Rule, RuleSet } from "./parse-rules.js";
import type { RuleAction } from "./rules-schema.js";
import { commandOf, filePaths, newTexts, type ToolCall } from "./tool-input.js";

export type { ToolCall } from "./tool-input.js";

export interface RuleDecision {
  action: RuleAction;
  rule: Rule;
  /** The rule's message (required for deny and note), or null. */
  message: string | null;
}

export function evaluate(rules: RuleSet, call: ToolCall): RuleDecision | null {
  const rule = rules.rules.find((r) => matches(r, call));
  return rule ? { action: rule.action, rule, message: rule.message } : null;
}

/** Every field the rule gives must match; a field the call lacks (no file_path, say) does not match. */
export function matches(rule: Rule, call: ToolCall): boolean {
  if (!rule.tools.includes(call.toolName)) return false;
  const { path, command, content } = rule.compiled;
  if (path) {
    const file = filePaths(call);
    if (file === null || !path(file)) return false;
  }
  if (command) {
    const text = commandOf(call);
    if (text === null || !command.test(text)) return false;
  }
  if (content && !newTexts(call).some((text) => content.test(text))) return false;
  return true;
}
