/**
 * claude's control protocol over stream-json (measured with 2.1.329, see docs/guide/recording.md): requests
 * claude sends on stdout and waits for (`can_use_tool` with `--permission-prompt-tool stdio`,
 * `hook_callback` for hooks registered by an `initialize` request), and the responses nudge
 * writes back on stdin. Schemas are loose: fields claude adds must never break a session.
 */
import * as z from "../base/zod.js";

/** A rule claude can add to its permission settings, as offered in `permission_suggestions`. */
export const PermissionUpdate = z.looseObject({
  type: z.string(),
  rules: z.optional(z.array(z.looseObject({ toolName: z.string(), ruleContent: z.optional(z.string()) }))),
  behavior: z.optional(z.string()),
  destination: z.optional(z.string()),
  directories: z.optional(z.array(z.string())),
  mode: z.optional(z.string()),
});
export type PermissionUpdate = z.infer<typeof PermissionUpdate>;

/**
 * claude asks whether a tool may run (the permission mode and rules did not decide it), or, with
 * `requires_user_interaction`, needs the user's answer (AskUserQuestion, ExitPlanMode). For
 * ExitPlanMode the input arrives empty: the plan is in the assistant's tool_use block of the same
 * `tool_use_id`.
 */
export const CanUseToolRequest = z.looseObject({
  subtype: z.literal("can_use_tool"),
  tool_name: z.string(),
  input: z.catch(z.record(z.string(), z.unknown()), {}),
  description: z.optional(z.string()),
  permission_suggestions: z.optional(z.catch(z.array(PermissionUpdate), [])),
  blocked_path: z.optional(z.string()),
  tool_use_id: z.optional(z.string()),
  requires_user_interaction: z.optional(z.boolean()),
});
export type CanUseToolRequest = z.infer<typeof CanUseToolRequest>;

/** A hook registered through `initialize` fired: PreToolUse before a tool runs, PostToolUse after. */
export const HookCallbackRequest = z.looseObject({
  subtype: z.literal("hook_callback"),
  callback_id: z.string(),
  input: z.looseObject({
    hook_event_name: z.string(),
    tool_name: z.optional(z.string()),
    tool_input: z.optional(z.record(z.string(), z.unknown())),
    tool_use_id: z.optional(z.string()),
    cwd: z.optional(z.string()),
  }),
});
export type HookCallbackRequest = z.infer<typeof HookCallbackRequest>;

export const ControlRequestEvent = z.looseObject({
  type: z.literal("control_request"),
  request_id: z.string(),
  request: z.looseObject({ subtype: z.string() }),
});
export type ControlRequestEvent = z.infer<typeof ControlRequestEvent>;

/**
 * The answer to a `can_use_tool` request. `nudgeAlways` marks an answer "always for this session",
 * which nudge keeps itself (the same call is allowed again without asking): claude ignores the key
 * (measured on 2.1.329), and the recording keeps it, so the decision line, live and in a replay,
 * says what was kept.
 */
export type PermissionDecision =
  | {
      behavior: "allow";
      updatedInput: Record<string, unknown>;
      updatedPermissions?: PermissionUpdate[];
      nudgeAlways?: true;
    }
  | { behavior: "deny"; message: string; interrupt?: boolean };

/** The answer to a PreToolUse hook: claude's own permission flow runs when it is "ask" or absent. */
export interface PreToolUseOutput {
  hookSpecificOutput: {
    hookEventName: "PreToolUse";
    permissionDecision?: "allow" | "deny" | "ask";
    permissionDecisionReason?: string;
    updatedInput?: Record<string, unknown>;
  };
}

/**
 * The answer to a PostToolUse hook (the tool succeeded) or PostToolUseFailure (it returned an
 * error, e.g. Bash exiting non-zero; PostToolUse does not fire then): `additionalContext` reaches
 * the model right after the tool result, as "PostToolUse:Bash hook additional context: …".
 */
export interface PostToolUseOutput {
  hookSpecificOutput: { hookEventName: "PostToolUse" | "PostToolUseFailure"; additionalContext?: string };
}

/** The hook events nudge registers callbacks for. */
export type HookEvent = "PreToolUse" | "PostToolUse" | "PostToolUseFailure";
export type HookRegistration = Partial<Record<HookEvent, Array<{ matcher: string; hookCallbackIds: string[] }>>>;

/** The line nudge writes back for a request claude is waiting on. */
export function controlResponse(requestId: string, response: object): object {
  return { type: "control_response", response: { subtype: "success", request_id: requestId, response } };
}

/** A request nudge could not answer: claude treats the tool call as failed, the session goes on. */
export function controlError(requestId: string, error: string): object {
  return { type: "control_response", response: { subtype: "error", request_id: requestId, error } };
}

/**
 * Register hooks (sent before the first prompt). claude then sends a `hook_callback` naming the
 * callback id for every tool call the matcher (a regex on the tool name) matches.
 */
export function initializeRequest(requestId: string, hooks: HookRegistration): object {
  return { type: "control_request", request_id: requestId, request: { subtype: "initialize", hooks } };
}

/**
 * What "don't ask again" saves, and so what the question names: claude's suggested rules, else
 * its other suggestions (a Write's is a mode: edits accepted for the session).
 */
export function suggestionsToSave(suggestions: PermissionUpdate[] | undefined): PermissionUpdate[] {
  const all = suggestions ?? [];
  const rules = all.filter((s) => s.type === "addRules");
  return rules.length > 0 ? rules : all;
}
