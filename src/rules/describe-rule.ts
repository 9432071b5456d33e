/** Rules in words, for `nudge rules list` and anything else that shows a rule on one line. */
import type { Rule } from "./parse-rules.js";

/** What the rule matches: `Bash · command /\bnpm\b/`, `Write|Edit · path .env, **\/*.pem`. */
export function describeMatch(rule: Rule): string {
  const parts = [rule.tools.join("|")];
  if (rule.match.path) parts.push(`path ${rule.match.path.join(", ")}`);
  if (rule.match.command !== undefined) parts.push(`command /${rule.match.command}/`);
  if (rule.match.content !== undefined) parts.push(`content /${rule.match.content}/`);
  return parts.join(" · ");
}

/** A rule as plain data (no compiled matchers), for --json. */
export function ruleJson(rule: Rule) {
  return {
    id: rule.id,
    position: rule.position,
    action: rule.action,
    tools: rule.tools,
    match: rule.match,
    message: rule.message,
  };
}
