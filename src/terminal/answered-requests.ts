/**
 * What claude does once a permission question is answered: the allowed tool runs. The status line
 * says "waiting for your answer" while a question is open; claude's echo of the answer says nothing
 * of what follows, so the request is remembered here to name the tool that now runs.
 */
import type { StreamEvent } from "../claude/stream-events.js";
import { oneLine } from "./format.js";
import { toolDetail } from "../claude/tool-detail.js";

export class AnsweredRequests {
  private readonly asked = new Map<string, { tool: string; input: Record<string, unknown> }>();

  constructor(private readonly cwd: string) {}

  /** The activity an answer starts ("running Bash(npm test)", "working" after a refusal), or null. */
  activity(event: StreamEvent): string | null {
    if (event.type === "control_request") {
      const r = event.request as { subtype: string; tool_name?: unknown; input?: unknown };
      if (r.subtype === "can_use_tool" && typeof r.tool_name === "string") {
        this.asked.set(event.request_id, { tool: r.tool_name, input: r.input && typeof r.input === "object" ? (r.input as Record<string, unknown>) : {} });
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
