/**
 * The user's answers to claude's requests, as lines in the conversation: `✓ allowed Bash(echo hi)`,
 * `✗ denied Bash(rm -rf x): reason`, `? answered "Which db?" = SQLite`. A response is paired with
 * the `can_use_tool` request of the same request_id seen before it. claude echoes every response
 * nudge writes on its stdout, and a replay merges what nudge wrote (input.jsonl) with what claude
 * wrote, so the same response arrives twice: each request's decision is shown once. In a replay,
 * an answer to a `hook_callback` shows what the project's rules decided: `⚖ rule no-npm denied …`
 * (live, the rules guard says so as it decides).
 */
import type { HookCallbackRequest } from "../claude/control-protocol.js";
import type { ControlRequestEvent, ControlResponseEvent } from "../claude/stream-events.js";
import { describeRecord } from "../rules/decision-record.js";
import { decisionFromAnswer } from "../rules/hook-answers.js";
import { toolDetail } from "../claude/tool-detail.js";
import { visible } from "../base/inert-text.js";
import { oneLine } from "../base/format.js";
import type { Style } from "./style.js";

interface Asked {
  tool: string;
  input: Record<string, unknown>;
  toolUseId?: string;
}

interface PermissionUpdateLike {
  type?: unknown;
  destination?: unknown;
  rules?: Array<{ toolName?: unknown; ruleContent?: unknown }>;
}

export class Decisions {
  private readonly asked = new Map<string, Asked>();
  /** Hook calls seen (for rule decisions), by request_id. */
  private readonly hooks = new Map<string, HookCallbackRequest["input"]>();
  private readonly shown = new Set<string>();
  /** Tool calls the user refused: their error result only repeats the reason already shown. */
  private readonly refused = new Set<string>();

  constructor(private readonly o: { style: Style; cwd: string; ruleDecisions?: { repoRoot: string } }) {}

  /** Remember what a request asked, for the line its answer will make. */
  request(event: ControlRequestEvent): void {
    const r = event.request as { subtype: string; tool_name?: unknown; input?: unknown; tool_use_id?: unknown };
    if (r.subtype === "hook_callback" && r.input && typeof r.input === "object") {
      this.hooks.set(event.request_id, r.input as HookCallbackRequest["input"]);
      return;
    }
    if (r.subtype !== "can_use_tool" || typeof r.tool_name !== "string") return;
    const input = r.input && typeof r.input === "object" ? (r.input as Record<string, unknown>) : {};
    this.asked.set(event.request_id, {
      tool: r.tool_name,
      input,
      toolUseId: typeof r.tool_use_id === "string" ? r.tool_use_id : undefined,
    });
  }

  /** Whether the user refused this tool call (a decision line said so already). */
  wasRefused(toolUseId: string): boolean {
    return this.refused.has(toolUseId);
  }

  /** The lines for an answer (none for a response that is not a decision, or one already shown). */
  response(event: ControlResponseEvent): string[] {
    const r = event.response as { subtype: string; request_id?: string; response?: unknown; error?: unknown };
    const id = r.request_id;
    if (!id || this.shown.has(id)) return [];
    const asked = this.asked.get(id);
    const { style } = this.o;
    const hook = this.hooks.get(id);
    if (hook) {
      const record =
        r.subtype === "success"
          ? decisionFromAnswer(hook, r.response, this.o.ruleDecisions?.repoRoot ?? this.o.cwd)
          : null;
      if (!record) return [];
      this.shown.add(id);
      // claude reports a denial as a "hook error" result that only repeats the rule's message.
      if (record.action === "deny" && record.toolUseId) this.refused.add(record.toolUseId);
      // Live, the rules guard has said it already, as it decided.
      return this.o.ruleDecisions ? [`⚖ ${describeRecord(record)}`] : [];
    }
    if (r.subtype === "error") {
      if (!asked) return [];
      this.shown.add(id);
      return [style.red(`✗ ${this.name(asked)}: not answered (${oneLine(String(r.error ?? "error"), 120)})`)];
    }
    const answer = r.response as
      { behavior?: unknown; message?: unknown; updatedInput?: unknown; updatedPermissions?: unknown } | undefined;
    // A response to something else (claude acknowledging an interrupt, an initialize) is no
    // decision; nor is one to a request not seen (a replay of one turn meeting another's answer).
    if (!asked || !answer || (answer.behavior !== "allow" && answer.behavior !== "deny")) return [];
    this.shown.add(id);
    const tool = asked.tool;
    if (answer.behavior === "deny") {
      if (asked.toolUseId) this.refused.add(asked.toolUseId);
      const reason = typeof answer.message === "string" && answer.message.trim() ? oneLine(answer.message, 200) : "";
      if (tool === "ExitPlanMode") return [style.yellow(`✗ kept planning${reason ? `: ${reason}` : ""}`)];
      if (tool === "AskUserQuestion") return [style.yellow("✗ declined to answer")];
      return [style.red(`✗ denied ${this.name(asked)}${reason ? `: ${reason}` : ""}`)];
    }
    if (tool === "ExitPlanMode") return [style.green("✓ plan approved")];
    const updated = answer.updatedInput as { answers?: unknown } | undefined;
    if (tool === "AskUserQuestion" || (updated?.answers && typeof updated.answers === "object")) {
      const answers = Object.entries((updated?.answers ?? {}) as Record<string, unknown>);
      if (answers.length === 0) return [style.green("✓ answered")];
      return answers.map(([q, a]) => style.cyan(`? answered "${oneLine(q, 80)}" = ${oneLine(String(a), 120)}`));
    }
    const name = this.name(asked);
    const updates = Array.isArray(answer.updatedPermissions)
      ? (answer.updatedPermissions as PermissionUpdateLike[])
      : [];
    const kept = keptBy(updates, (answer as { nudgeAlways?: unknown }).nudgeAlways === true);
    return [style.green(`✓ allowed ${name}`) + (kept ? style.dim(` · ${kept}`) : "")];
  }

  private name(asked: Asked): string {
    const detail = toolDetail({ input: asked.input }, this.o.cwd);
    return `${visible(asked.tool)}${detail ? `(${detail})` : ""}`;
  }
}

/**
 * What an answer keeps beyond this one call, and for how long: "for this session: this same call,
 * rule Bash(npm test)", "saved for every session: rule Bash(npm run lint:*) in
 * .claude/settings.local.json". `always`: nudge itself allows this same call again this session.
 */
function keptBy(updates: PermissionUpdateLike[], always: boolean): string {
  const session = updates.filter((u) => u.destination === "session").map(describeChange);
  const saved = updates.filter((u) => u.destination !== "session").map(describeUpdate);
  const forSession = [...(always ? ["this same call"] : []), ...session];
  return [
    forSession.length ? `for this session: ${forSession.join(", ")}` : "",
    saved.length ? `saved for every session: ${saved.join(", ")}` : "",
  ]
    .filter(Boolean)
    .join(" · ");
}

/** "rule Bash(npm test:*) in .claude/settings.local.json", as the permission suggestion says. */
export function describeUpdate(update: PermissionUpdateLike): string {
  return `${describeChange(update)} in ${settingsFile(update.destination)}`;
}

/** What a permission update allows: "rule Bash(npm test:*)", "mode acceptEdits (every file edit allowed)". */
function describeChange(update: PermissionUpdateLike): string {
  const rules = (update.rules ?? []).map((r) =>
    typeof r.ruleContent === "string" && r.ruleContent ? `${String(r.toolName)}(${r.ruleContent})` : String(r.toolName),
  );
  const u = update as PermissionUpdateLike & { directories?: unknown; mode?: unknown };
  if (update.type === "addRules" && rules.length > 0) return `rule ${rules.join(", ")}`;
  if (update.type === "addDirectories" && Array.isArray(u.directories)) return `directory ${u.directories.join(", ")}`;
  if (update.type === "setMode" && typeof u.mode === "string")
    return `mode ${u.mode}${MODE_MEANS[u.mode] ? ` (${MODE_MEANS[u.mode]})` : ""}`;
  return String(update.type ?? "a permission");
}

/** claude's permission modes, as a person needs them explained where one is saved. */
const MODE_MEANS: Record<string, string> = {
  acceptEdits: "every file edit allowed",
  bypassPermissions: "every tool allowed",
  plan: "plan only, no changes",
};

function settingsFile(destination: unknown): string {
  switch (destination) {
    case "localSettings":
      return ".claude/settings.local.json";
    case "projectSettings":
      return ".claude/settings.json";
    case "userSettings":
      return "~/.claude/settings.json";
    case "session":
      return "this session";
    default:
      return String(destination ?? "settings");
  }
}
