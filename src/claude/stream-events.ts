/**
 * The parts of claude's stream-json lines nudge looks at. Schemas are loose: claude adds fields
 * between versions, and a field we do not know must never break a recording. Anything that does
 * not match is an `OtherEvent` and is still stored byte for byte.
 */
import * as z from "../base/zod.js";
import { ControlRequestEvent } from "./control-protocol.js";

const TextBlock = z.looseObject({ type: z.literal("text"), text: z.string() });
const ToolUseBlock = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.catch(z.record(z.string(), z.unknown()), {}),
});
const ToolResultBlock = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.unknown(),
  is_error: z.optional(z.boolean()),
});
const AnyBlock = z.looseObject({ type: z.string() });

export const SystemEvent = z.looseObject({
  type: z.literal("system"),
  subtype: z.string(),
  session_id: z.optional(z.string()),
  model: z.optional(z.string()),
  cwd: z.optional(z.string()),
  claude_code_version: z.optional(z.string()),
  attempt: z.optional(z.number()),
  max_retries: z.optional(z.number()),
  retry_delay_ms: z.optional(z.number()),
  error_status: z.optional(z.nullable(z.number())),
  error: z.optional(z.unknown()),
});

export const AssistantEvent = z.looseObject({
  type: z.literal("assistant"),
  uuid: z.optional(z.string()),
  session_id: z.optional(z.string()),
  parent_tool_use_id: z.optional(z.nullable(z.string())),
  error: z.optional(z.unknown()),
  message: z.looseObject({
    id: z.optional(z.string()),
    model: z.optional(z.string()),
    content: z.catch(z.array(z.union([TextBlock, ToolUseBlock, AnyBlock])), []),
  }),
});

export const UserEvent = z.looseObject({
  type: z.literal("user"),
  uuid: z.optional(z.string()),
  session_id: z.optional(z.string()),
  isReplay: z.optional(z.boolean()),
  parent_tool_use_id: z.optional(z.nullable(z.string())),
  message: z.looseObject({
    content: z.union([z.string(), z.array(z.union([ToolResultBlock, TextBlock, AnyBlock]))]),
  }),
});

export const ResultEvent = z.looseObject({
  type: z.literal("result"),
  subtype: z.string(),
  is_error: z.catch(z.boolean(), false),
  session_id: z.optional(z.string()),
  /** Cumulative over the claude process's life, not per turn (measured with 2.1.329). */
  total_cost_usd: z.optional(z.number()),
  /** Per-model usage since the previous result: the turn's own cost is the sum of its costUSD. */
  model_usage_since_last_result: z.optional(z.record(z.string(), z.looseObject({ costUSD: z.optional(z.number()) }))),
  duration_ms: z.optional(z.number()),
  num_turns: z.optional(z.number()),
  usage: z.optional(z.record(z.string(), z.unknown())),
  result: z.optional(z.string()),
  errors: z.optional(z.array(z.unknown())),
  /** Set when the turn ended on an API error (the subtype still says "success" then). */
  api_error_status: z.optional(z.nullable(z.number())),
  /** "completed", "api_error", "aborted_streaming" (an interrupt), ... */
  terminal_reason: z.optional(z.string()),
});

export const ControlResponseEvent = z.looseObject({
  type: z.literal("control_response"),
  response: z.looseObject({ subtype: z.string(), request_id: z.optional(z.string()) }),
});

/**
 * With --include-partial-messages: the API's own stream events (message_start, content_block_*
 * with text_delta / thinking_delta / input_json_delta, message_delta, message_stop), so text can
 * be shown as it is typed. The whole `assistant` line still follows each message.
 */
const PartialEvent = z.looseObject({
  type: z.literal("stream_event"),
  event: z.looseObject({ type: z.string() }),
  parent_tool_use_id: z.optional(z.nullable(z.string())),
  session_id: z.optional(z.string()),
  uuid: z.optional(z.string()),
});

export type SystemEvent = z.infer<typeof SystemEvent>;
type PartialEvent = z.infer<typeof PartialEvent>;
export type AssistantEvent = z.infer<typeof AssistantEvent>;
export type UserEvent = z.infer<typeof UserEvent>;
export type ResultEvent = z.infer<typeof ResultEvent>;
export type ControlResponseEvent = z.infer<typeof ControlResponseEvent>;
export type { ControlRequestEvent };
export type ToolUse = z.infer<typeof ToolUseBlock>;
export type ToolResult = z.infer<typeof ToolResultBlock>;
interface OtherEvent {
  type: "other";
  raw: unknown;
}
interface InvalidLine {
  type: "invalid";
  text: string;
}

export type StreamEvent =
  | SystemEvent
  | AssistantEvent
  | UserEvent
  | ResultEvent
  | ControlResponseEvent
  | ControlRequestEvent
  | PartialEvent
  | OtherEvent
  | InvalidLine;

const byType: Record<string, z.ZodMiniType<StreamEvent>> = {
  system: SystemEvent,
  assistant: AssistantEvent,
  user: UserEvent,
  result: ResultEvent,
  control_response: ControlResponseEvent,
  control_request: ControlRequestEvent,
  stream_event: PartialEvent,
};

/** Classify a parsed line (`json` null = the line was not JSON). */
export function toStreamEvent(json: unknown, text: string): StreamEvent {
  if (json === null || typeof json !== "object") return { type: "invalid", text };
  const schema = byType[(json as { type?: unknown }).type as string];
  if (!schema) return { type: "other", raw: json };
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : { type: "other", raw: json };
}

export function isToolUse(block: { type: string }): block is ToolUse {
  return block.type === "tool_use" && typeof (block as ToolUse).name === "string";
}

export function isToolResult(block: { type: string }): block is ToolResult {
  return block.type === "tool_result";
}

/**
 * Whether a task event (system task_started / task_notification) is a subagent's. claude reports a
 * long-running or background Bash command as a task too (task_type "local_bash"); subagents are
 * "local_agent", "remote_agent", and no type in older versions.
 */
export function isSubagentTask(event: SystemEvent): boolean {
  return typeof event.task_type !== "string" || event.task_type.includes("agent");
}

export function isText(block: { type: string }): block is { type: "text"; text: string } {
  return block.type === "text" && typeof (block as { text?: unknown }).text === "string";
}
