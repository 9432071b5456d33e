/**
 * After a Ctrl-C, the tool that was running ends with claude's own error result for it ("The user
 * doesn't want to proceed with this tool use. The tool use was rejected …", several lines meant
 * for the model). On screen the interrupt notice has said it already: those results are left out
 * of what is shown until the turn ends. The recording keeps them.
 */
import type { StreamEvent } from "../claude/stream-events.js";

export class InterruptedResults {
  private interrupted = false;

  /** The user interrupted the turn in flight. */
  interrupt(): void {
    this.interrupted = true;
  }

  /** The event as it is shown: without error tool results once the turn was interrupted; null for nothing. */
  shown(event: StreamEvent): StreamEvent | null {
    if (event.type === "result") this.interrupted = false;
    if (!this.interrupted || event.type !== "user" || event.parent_tool_use_id || typeof event.message.content === "string") return event;
    const content = event.message.content.filter((b) => !(b && typeof b === "object" && (b as { type?: unknown }).type === "tool_result" && (b as { is_error?: unknown }).is_error === true));
    if (content.length === event.message.content.length) return event;
    return content.length === 0 ? null : { ...event, message: { ...event.message, content } };
  }
}
