/**
 * What claude is doing now, read from its stream, for any frontend's status line (the terminal's
 * spinner line, the page's): requesting, writing, thinking, running a tool (named with its
 * detail), a subagent, waiting for an answer. Tool names and details are claude's words: the
 * frontends show them as inert text.
 */
import type { StreamEvent } from "../claude/stream-events.js";
import { isSubagentTask, isToolResult, isToolUse } from "../claude/stream-events.js";
import { toolDetail } from "../claude/tool-detail.js";
import { oneLine } from "../base/format.js";

/** What an event says claude is doing, or null when it says nothing new. Subagents' own events count as the subagent's. */
export function activityOf(event: StreamEvent, cwd: string): string | null {
  switch (event.type) {
    case "system":
      if (event.subtype === "status") return typeof event.status === "string" ? event.status : null;
      if (event.subtype === "api_retry")
        return `retrying after an API error${event.attempt ? ` (attempt ${event.attempt})` : ""}`;
      if (event.subtype === "task_started") {
        if (!isSubagentTask(event)) return null; // a long Bash command: its tool call already says so
        const description = typeof event.description === "string" ? event.description : "";
        return `subagent: ${oneLine(description, 60)}`;
      }
      return null;
    case "stream_event": {
      if (event.parent_tool_use_id) return null;
      const e = event.event as { type: string; content_block?: { type?: string; name?: string } };
      if (e.type !== "content_block_start") return null;
      if (e.content_block?.type === "thinking") return "thinking";
      if (e.content_block?.type === "text") return "writing";
      if (e.content_block?.type === "tool_use") return `preparing ${e.content_block.name ?? "a tool"}`;
      return null;
    }
    case "assistant": {
      if (event.parent_tool_use_id) return null;
      const tool = event.message.content.filter(isToolUse).at(-1);
      if (!tool) return null;
      const detail = toolDetail(tool, cwd);
      return `running ${tool.name}${detail ? `(${oneLine(detail, 60)})` : ""}`;
    }
    case "user":
      if (event.parent_tool_use_id || typeof event.message.content === "string") return null;
      return event.message.content.some(isToolResult) ? "working" : null;
    case "control_request":
      // A hook callback is answered by the project's rules, not by a person.
      return (event.request as { subtype?: unknown }).subtype === "can_use_tool" ? "waiting for your answer" : null;
    default:
      return null;
  }
}

/**
 * What claude does once a permission question is answered: the allowed tool runs. A status line
 * says "waiting for your answer" while a question is open; claude's echo of the answer says nothing
 * of what follows, so the request is remembered here to name the tool that now runs.
 */
export class AnsweredRequests {
  private readonly asked = new Map<string, { tool: string; input: Record<string, unknown> }>();

  constructor(private readonly cwd: string) {}

  /** The activity an answer starts ("running Bash(npm test)", "working" after a refusal), or null. */
  activity(event: StreamEvent): string | null {
    if (event.type === "control_request") {
      const r = event.request as { subtype: string; tool_name?: unknown; input?: unknown };
      if (r.subtype === "can_use_tool" && typeof r.tool_name === "string") {
        this.asked.set(event.request_id, {
          tool: r.tool_name,
          input: r.input && typeof r.input === "object" ? (r.input as Record<string, unknown>) : {},
        });
      }
      return null;
    }
    if (event.type !== "control_response") return null;
    const r = event.response as { request_id?: unknown; response?: { behavior?: unknown } };
    const asked = typeof r.request_id === "string" ? this.asked.get(r.request_id) : undefined;
    if (!asked) return null;
    this.asked.delete(r.request_id as string);
    if (r.response?.behavior !== "allow") return "working";
    const detail = toolDetail({ input: asked.input }, this.cwd);
    return `running ${asked.tool}${detail ? `(${oneLine(detail, 60)})` : ""}`;
  }
}
