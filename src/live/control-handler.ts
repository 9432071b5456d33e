/**
 * Answers claude's control requests: a tool that needs permission, AskUserQuestion, a plan to
 * approve (`can_use_tool`), and the hooks a tool guard (the project's rules) registered
 * (`hook_callback`). The person is asked through the frontend's `Asker`; with nobody to ask, a
 * permission is refused with a message naming the flag that would allow it.
 */
import path from "node:path";
import {
  CanUseToolRequest,
  HookCallbackRequest,
  controlError,
  controlResponse,
  suggestionsToSave,
  type ControlRequestEvent,
  type HookRegistration,
  type PermissionDecision,
  type PermissionUpdate,
} from "../claude/control-protocol.js";
import type { ToolUse } from "../claude/stream-events.js";
import { errorMessage } from "../base/errors.js";
import { shellQuote } from "../base/shell-quote.js";
import { stableJson } from "../base/stable-json.js";
import type { Asker, Question } from "./ask.js";

/** Something that watches tool calls through hooks (the project's rules). */
export interface ToolGuard {
  /** The hooks to register with claude before the first prompt, or null for none. */
  hooks(): HookRegistration | null;
  /** The hook's output for one callback. */
  answer(callbackId: string, input: HookCallbackRequest["input"]): Promise<object> | object;
  /** The rule that made claude ask about this tool call (an `ask` rule), if one did. */
  askedBy?(toolUseId: string): string | null;
}

export interface ControlContext {
  asker: Asker | null;
  guard: ToolGuard | null;
  /** The folder claude works in (paths in questions are shown relative to it). */
  cwd: string;
  notice: (text: string) => void;
  /** The assistant's tool_use block of an id, as seen in the stream. */
  toolUse: (id: string | undefined) => ToolUse | undefined;
}

/** A request "always" allowed: the same tool and input, or a Bash command under an allowed prefix. */
interface Allowance {
  tool: string;
  input?: string;
  commandPrefix?: string;
}

export class ControlHandler {
  private readonly allowances: Allowance[] = [];
  private readonly refusedTools = new Set<string>();

  constructor(private readonly c: ControlContext) {}

  get hooks(): HookRegistration | null {
    const hooks = this.c.guard?.hooks() ?? null;
    return hooks && Object.keys(hooks).length > 0 ? hooks : null;
  }

  /** The control_response line for a request (an error response when nudge cannot answer it). */
  async respond(event: ControlRequestEvent): Promise<object> {
    try {
      const subtype = event.request.subtype;
      if (subtype === "can_use_tool")
        return controlResponse(event.request_id, await this.canUseTool(CanUseToolRequest.parse(event.request)));
      if (subtype === "hook_callback" && this.c.guard) {
        const hook = HookCallbackRequest.parse(event.request);
        return controlResponse(event.request_id, await this.c.guard.answer(hook.callback_id, hook.input));
      }
      return controlError(event.request_id, `nudge does not handle ${subtype} requests`);
    } catch (error) {
      return controlError(event.request_id, `nudge could not answer: ${errorMessage(error)}`);
    }
  }

  private async canUseTool(request: CanUseToolRequest): Promise<PermissionDecision> {
    const { asker } = this.c;
    if (request.tool_name === "AskUserQuestion") return this.questions(request);
    if (request.tool_name === "ExitPlanMode") return this.plan(request);
    if (this.allowed(request)) return { behavior: "allow", updatedInput: request.input };
    if (!asker)
      return this.refuseUnattended(
        request,
        (request.tool_use_id && this.c.guard?.askedBy?.(request.tool_use_id)) || null,
      );
    const answer = await asker.permission(request, { cwd: this.c.cwd, toolUse: this.c.toolUse(request.tool_use_id) });
    switch (answer.kind) {
      case "yes":
        return { behavior: "allow", updatedInput: request.input };
      case "no":
        return {
          behavior: "deny",
          message: answer.reason
            ? `The user refused this tool call: ${answer.reason}`
            : "The user refused this tool call.",
        };
      case "always":
      case "save": {
        this.remember(request);
        const suggestions = request.permission_suggestions ?? [];
        // "always" keeps claude's rules for the session; "don't ask again" saves what the question named.
        const updatedPermissions: PermissionUpdate[] =
          answer.kind === "always"
            ? suggestions.filter((s) => s.type === "addRules").map((s) => ({ ...s, destination: "session" }))
            : suggestionsToSave(suggestions);
        return {
          behavior: "allow",
          updatedInput: request.input,
          ...(updatedPermissions.length ? { updatedPermissions } : {}),
          ...(answer.kind === "always" ? { nudgeAlways: true as const } : {}),
        };
      }
    }
  }

  private async questions(request: CanUseToolRequest): Promise<PermissionDecision> {
    const questions = Array.isArray(request.input.questions) ? (request.input.questions as Question[]) : [];
    if (!this.c.asker)
      return {
        behavior: "deny",
        message:
          "Nobody is at a terminal to answer questions in this session; go on with your best judgement and say what you assumed.",
      };
    const answers = await this.c.asker.questions(questions);
    if (!answers) return { behavior: "deny", message: "The user declined to answer." };
    return { behavior: "allow", updatedInput: { ...request.input, answers } };
  }

  private async plan(request: CanUseToolRequest): Promise<PermissionDecision> {
    // The request's input arrives empty: the plan is in the assistant's tool_use block.
    const plan = String(this.c.toolUse(request.tool_use_id)?.input.plan ?? request.input.plan ?? "");
    if (!this.c.asker)
      return {
        behavior: "deny",
        message: "Nobody is at a terminal to approve the plan; keep planning, or say what you need.",
      };
    const answer = await this.c.asker.plan(plan);
    // "Yes, and accept edits": claude's own permission update, which sets the mode as the plan mode ends.
    if (answer.approve && answer.acceptEdits)
      return {
        behavior: "allow",
        updatedInput: request.input,
        updatedPermissions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
      };
    if (answer.approve) return { behavior: "allow", updatedInput: request.input };
    return {
      behavior: "deny",
      message: answer.feedback
        ? `The user wants you to keep planning: ${answer.feedback}`
        : "The user wants you to keep planning.",
    };
  }

  /** Without a terminal nobody can answer: refuse, and say once per tool which flag would allow it. */
  private refuseUnattended(request: CanUseToolRequest, rule: string | null): PermissionDecision {
    const tool = request.tool_name;
    if (rule) {
      // An ask rule asks whatever claude's mode and flags allow: no flag helps, only a person (or the rule).
      if (!this.refusedTools.has(`rule:${rule}`)) {
        this.refusedTools.add(`rule:${rule}`);
        this.c.notice(
          `${tool} was refused: the project's rule "${rule}" asks a person, and there is no terminal to ask; run on a terminal, or change the rule in .nudge/rules.yaml`,
        );
      }
      return {
        behavior: "deny",
        message: `Permission to use ${tool} was refused: the project's rule "${rule}" needs the user's answer, and nobody is at a terminal.`,
      };
    }
    // A path outside the folders claude may use is asked about in every mode: --add-dir lets claude in.
    const blocked = request.blocked_path && path.isAbsolute(request.blocked_path) ? request.blocked_path : null;
    const fromCwd = blocked ? path.relative(this.c.cwd, blocked) : "";
    const outside = blocked !== null && (fromCwd === ".." || fromCwd.startsWith(`..${path.sep}`));
    const flag = outside
      ? `-- --add-dir ${shellQuote(path.dirname(blocked))}`
      : ["Write", "Edit", "MultiEdit", "NotebookEdit"].includes(tool)
        ? "--permission-mode acceptEdits"
        : `--allowed-tools ${tool}`;
    // Once per tool and flag: a second kind of refusal of the same tool gets its own notice.
    if (!this.refusedTools.has(`${tool} ${flag}`)) {
      this.refusedTools.add(`${tool} ${flag}`);
      this.c.notice(
        `${tool} was refused: nobody can answer a permission question without a terminal; allow it with ${flag}`,
      );
    }
    return {
      behavior: "deny",
      message: `Permission to use ${tool} was refused: nobody is at a terminal to allow it (the user can rerun with ${flag}).`,
    };
  }

  private remember(request: CanUseToolRequest): void {
    this.allowances.push({ tool: request.tool_name, input: callKey(request.tool_name, request.input) });
    for (const suggestion of request.permission_suggestions ?? []) {
      for (const rule of suggestion.type === "addRules" ? (suggestion.rules ?? []) : []) {
        // claude's Bash rules: "npm test" exactly, or "npm run *" / "npm run:*" for a prefix.
        const prefix = rule.toolName === "Bash" ? /^(.*?)(?::\*| \*)$/.exec(rule.ruleContent ?? "")?.[1] : undefined;
        if (prefix) this.allowances.push({ tool: "Bash", commandPrefix: prefix });
      }
    }
  }

  private allowed(request: CanUseToolRequest): boolean {
    const input = callKey(request.tool_name, request.input);
    const command = typeof request.input.command === "string" ? request.input.command : null;
    return this.allowances.some(
      (a) => a.tool === request.tool_name && (a.input === input || underPrefix(command, a.commandPrefix)),
    );
  }
}

/**
 * A Bash command allowed by a prefix rule: the prefix, then plain arguments. Anything that could
 * chain or redirect another command (`;`, `&&`, `|`, `$(…)`, backticks, `>`…) is asked again.
 */
function underPrefix(command: string | null, prefix: string | undefined): boolean {
  if (command === null || prefix === undefined) return false;
  if (command !== prefix && !command.startsWith(`${prefix} `)) return false;
  return !/[;&|`$<>\n\\]/.test(command.slice(prefix.length));
}

/** Tools whose `description` is claude's note for people, not part of what the call does. */
const DESCRIBED_TOOLS = new Set(["Bash", "Task", "Agent"]);

/** What makes two calls the same for "always": their input (less a Bash command's description, worded anew each time). */
function callKey(tool: string, input: Record<string, unknown>): string {
  if (!DESCRIBED_TOOLS.has(tool)) return stableJson(input);
  const { description: _, ...rest } = input;
  return stableJson(rest);
}
