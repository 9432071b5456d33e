/**
 * Which rule decides a tool call: the first one, in file order, whose every match field matches.
 * Pure and total — it never throws, because an error answer to claude's PreToolUse hook makes
 * claude run the tool as if no rule existed (measured with 2.1.329).
 */
import type { Rule, RuleSet } from "./parse-rules.js";
import type { RuleAction } from "./rules-schema.js";
import type { Pattern } from "./pattern.js";
import { commandForms, readShell, type ShellReading } from "./shell-commands.js";
import { commandOf, filePaths, newTexts, realFilePaths, type FilePaths, type ToolCall } from "./tool-input.js";

export type { ToolCall } from "./tool-input.js";

export interface RuleDecision {
  action: RuleAction;
  rule: Rule;
  /** The rule's message (required for deny and note), or null. */
  message: string | null;
}

export function evaluate(rules: RuleSet, call: ToolCall): RuleDecision | null {
  const seen = new CallView(call);
  const rule = rules.rules.find((r) => matches(r, seen));
  return rule ? { action: rule.action, rule, message: rule.message } : null;
}

/**
 * What rules look at in a call, each read once however many rules ask and only when one does:
 * the command split into its simple commands, the file with its links resolved (read per rule,
 * that was a shell parse and a realpath per rule per tool call).
 */
class CallView {
  readonly command: string | null;
  private cache: { file?: FilePaths | null; realFile?: FilePaths | null; shell?: ShellReading | null } = {};
  constructor(readonly call: ToolCall) {
    this.command = commandOf(call);
  }
  get file(): FilePaths | null {
    return "file" in this.cache ? (this.cache.file ?? null) : (this.cache.file = filePaths(this.call));
  }
  get realFile(): FilePaths | null {
    return "realFile" in this.cache ? (this.cache.realFile ?? null) : (this.cache.realFile = realFilePaths(this.call));
  }
  get shell(): ShellReading | null {
    return "shell" in this.cache
      ? (this.cache.shell ?? null)
      : (this.cache.shell = this.command === null ? null : readShell(this.command));
  }
}

/** Every field the rule gives must match; a field the call lacks (no file_path, say) does not match. */
function matches(rule: Rule, seen: CallView): boolean {
  if (!rule.tools.includes(seen.call.toolName)) return false;
  const { path, command, content } = rule.compiled;
  if (path) {
    const file = seen.file;
    if (file === null) return false;
    // Through a symlink the tool reaches another file: deny, ask and note see either name; allow needs both.
    const real = seen.realFile;
    const hit = path(file);
    if (rule.action === "allow" ? !hit || (real !== null && !path(real)) : !hit && (real === null || !path(real)))
      return false;
  }
  if (command) {
    if (seen.command === null || !commandMatches(rule.action, command, seen.command, seen.shell!)) return false;
  }
  if (content && !newTexts(seen.call).some((text) => content.search(text))) return false;
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
function commandMatches(action: RuleAction, pattern: Pattern, command: string, reading: ShellReading): boolean {
  if (action === "allow")
    return (
      reading.notPlain === null && reading.commands.length > 0 && reading.commands.every((c) => pattern.matchesWhole(c))
    );
  return pattern.search(command) || reading.commands.some((c) => commandForms(c).some((form) => pattern.search(form)));
}
