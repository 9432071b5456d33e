/**
 * Which rule decides a tool call: the first one, in file order, whose every match field matches.
 * Pure and total — it never throws, because an error answer to claude's PreToolUse hook makes
 * claude run the tool as if no rule existed (measured with 2.1.329).
 */
import type { Rule, RuleSet } from "./parse-rules.js";
import type { RuleAction } from "./rules-schema.js";
import type { Pattern } from "./pattern.js";
import { commandForms, readShell } from "./shell-commands.js";
import { commandOf, filePaths, newTexts, realFilePaths, type ToolCall } from "./tool-input.js";

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
    if (file === null) return false;
    // Through a symlink the tool reaches another file: deny, ask and note see either name; allow needs both.
    const real = realFilePaths(call);
    const hit = path(file);
    if (rule.action === "allow" ? !hit || (real !== null && !path(real)) : !hit && (real === null || !path(real))) return false;
  }
  if (command) {
    const text = commandOf(call);
    if (text === null || !commandMatches(rule.action, command, text)) return false;
  }
  if (content && !newTexts(call).some((text) => content.search(text))) return false;
  return true;
}

/**
 * An allow rule allows only what it describes: the command must be plain (no substitution,
 * subshell, here-document, compound command or control character) and the pattern must match
 * each of its simple commands whole — `touch x\nnode --test` is two commands, and
 * `^node --test$` describes only one of them. Any other rule matches when the pattern is found
 * in the whole text or in any simple command, those inside `$( )` included, as written or as bash
 * will run it (quotes removed, `command`/`sudo`/assignments dropped): a deny on any part denies
 * the whole.
 */
export function commandMatches(action: RuleAction, pattern: Pattern, command: string): boolean {
  const reading = readShell(command);
  if (action === "allow") return reading.notPlain === null && reading.commands.length > 0 && reading.commands.every((c) => pattern.matchesWhole(c));
  return pattern.search(command) || reading.commands.some((c) => commandForms(c).some((form) => pattern.search(form)));
}
