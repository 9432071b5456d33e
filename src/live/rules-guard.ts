/**
 * The project's rules (.nudge/rules.yaml) as a tool guard: registered with claude as hooks, every
 * matching tool call is decided by them, and each decision is shown as it happens. The decisions
 * themselves are recorded as nudge's answers in input.jsonl (beside claude's requests in
 * conversation.jsonl), which is what replay shows.
 */
import { describeRecord } from "../rules/decision-record.js";
import { answerHook, hookRegistration } from "../rules/hook-answers.js";
import type { RuleSet } from "../rules/parse-rules.js";
import type { ToolGuard } from "./control-handler.js";

export function rulesGuard(rules: RuleSet, repoRoot: string, onDecision: (line: string) => void): ToolGuard | null {
  if (rules.rules.length === 0) return null;
  /** Tool calls an `ask` rule sent to claude's permission question, by tool_use_id. */
  const asked = new Map<string, string>();
  return {
    hooks: () => hookRegistration(rules),
    answer: (_callbackId, input) => {
      const { output, record } = answerHook(rules, input, repoRoot);
      if (record) onDecision(describeRecord(record));
      if (record?.action === "ask" && record.toolUseId) asked.set(record.toolUseId, record.rule);
      return output;
    },
    askedBy: (toolUseId) => asked.get(toolUseId) ?? null,
  };
}
