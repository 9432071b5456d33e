/**
 * claude's requests and the answers they got, as entries: a permission question and whether it was
 * allowed, an AskUserQuestion and what was chosen, a project rule's decision. A request is paired
 * with its answer by request_id; the answer is in input.jsonl (what nudge wrote) and often again in
 * claude's echo of it, so each request is answered once.
 */
import type { HookCallbackRequest } from "../claude/control-protocol.js";
import type { ControlRequestEvent, ControlResponseEvent } from "../claude/stream-events.js";
import { toolDetail } from "../claude/tool-detail.js";
import { decisionFromAnswer } from "../rules/hook-answers.js";
import type { Entry } from "./view-types.js";

type Permission = Extract<Entry, { kind: "permission" }>;
type Question = Extract<Entry, { kind: "question" }>;

export class RequestEntries {
  private readonly asked = new Map<string, Permission | { question: Question; texts: string[] }>();
  private readonly hooks = new Map<string, HookCallbackRequest["input"]>();
  private readonly answered = new Set<string>();

  constructor(private readonly o: { cwd: string; repoRoot: string }) {}

  /** A request claude sent: the entry to show where it was asked (none for a hook call). */
  request(event: ControlRequestEvent): Entry | null {
    const r = event.request as { subtype: string; tool_name?: unknown; input?: unknown; description?: unknown };
    const input =
      r.input && typeof r.input === "object" && !Array.isArray(r.input) ? (r.input as Record<string, unknown>) : {};
    if (r.subtype === "hook_callback") {
      this.hooks.set(event.request_id, input as HookCallbackRequest["input"]);
      return null;
    }
    if (r.subtype !== "can_use_tool" || typeof r.tool_name !== "string" || this.asked.has(event.request_id))
      return null;
    if (r.tool_name === "AskUserQuestion") {
      const texts = (Array.isArray(input.questions) ? input.questions : []).map((q: unknown) =>
        q && typeof q === "object" && typeof (q as { question?: unknown }).question === "string"
          ? (q as { question: string }).question
          : "",
      );
      const question: Question = { kind: "question", questions: texts, answers: [] };
      this.asked.set(event.request_id, { question, texts });
      return question;
    }
    const detail = toolDetail({ input }, this.o.cwd);
    const entry: Permission = {
      kind: "permission",
      tool: r.tool_name,
      detail,
      answer: "unanswered",
      by: null,
      message: null,
    };
    this.asked.set(event.request_id, entry);
    return entry;
  }

  /** An answer: fills in its request's entry; a rule's decision is an entry of its own. */
  response(event: ControlResponseEvent): Entry | null {
    const r = event.response as { subtype: string; request_id?: unknown; response?: unknown; error?: unknown };
    const id = typeof r.request_id === "string" ? r.request_id : null;
    if (id === null || this.answered.has(id)) return null;
    const hook = this.hooks.get(id);
    if (hook) {
      const record = r.subtype === "success" ? decisionFromAnswer(hook, r.response, this.o.repoRoot) : null;
      if (!record) return null;
      this.answered.add(id);
      return {
        kind: "rule",
        rule: record.rule,
        decision: record.action,
        tool: record.tool,
        detail: record.detail,
        message: record.message,
      };
    }
    const asked = this.asked.get(id);
    if (!asked) return null;
    this.answered.add(id);
    const answer = (r.response ?? {}) as {
      behavior?: unknown;
      message?: unknown;
      updatedInput?: unknown;
      updatedPermissions?: unknown;
      nudgeAlways?: unknown;
    };
    if ("question" in asked) {
      const chosen = (answer.updatedInput as { answers?: unknown } | undefined)?.answers;
      if (answer.behavior === "allow" && chosen && typeof chosen === "object") {
        asked.question.answers = asked.texts.map((q) => String((chosen as Record<string, unknown>)[q] ?? ""));
      }
      return null;
    }
    if (r.subtype === "error") {
      asked.message = typeof r.error === "string" ? r.error : "not answered";
      return null;
    }
    if (answer.behavior !== "allow" && answer.behavior !== "deny") return null;
    asked.answer = answer.behavior;
    asked.message = typeof answer.message === "string" && answer.message.trim() ? answer.message : null;
    asked.by = answer.nudgeAlways === true ? "always for this session" : keptRules(answer.updatedPermissions);
    return null;
  }
}

/** "saved: Bash(npm test:*)": the rules an answer added to claude's settings, when it added any. */
function keptRules(updates: unknown): string | null {
  if (!Array.isArray(updates)) return null;
  const rules = updates.flatMap((u: { rules?: unknown; mode?: unknown }) => [
    ...(Array.isArray(u?.rules) ? u.rules : []).map((r: { toolName?: unknown; ruleContent?: unknown }) =>
      typeof r?.ruleContent === "string" && r.ruleContent
        ? `${String(r.toolName)}(${r.ruleContent})`
        : String(r?.toolName),
    ),
    ...(typeof u?.mode === "string" ? [`mode ${u.mode}`] : []),
  ]);
  return rules.length ? `saved: ${rules.join(", ")}` : null;
}
