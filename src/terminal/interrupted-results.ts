/**
 * After a Ctrl-C or Esc, what claude still sends for the interrupted turn is not shown until the
 * turn ends: the words it was typing (already on their way, or queued behind a slow terminal)
 * would land under the interrupt notice as stray fragments, and the tool that was running ends
 * with claude's own error result for it ("The user doesn't want to proceed with this tool use…",
 * meant for the model), which the notice has said already. The recording keeps all of it.
 */
import type { StreamEvent } from "../claude/stream-events.js";

const isBlock = (b: unknown, type: string): boolean =>
  Boolean(b && typeof b === "object" && (b as { type?: unknown }).type === type);

export class InterruptedResults {
  private interrupted = false;

  /** The user interrupted the turn in flight. */
  interrupt(): void {
    this.interrupted = true;
  }

  /** A new turn starts (the interrupted one may have had no result: a claude stopped or killed). */
  reset(): void {
    this.interrupted = false;
  }

  /** The event as it is shown once the turn was interrupted: without claude's words or error tool results; null for nothing. */
  shown(event: StreamEvent): StreamEvent | null {
    if (event.type === "result") this.interrupted = false;
    if (!this.interrupted || ("parent_tool_use_id" in event && event.parent_tool_use_id)) return event;
    if (event.type === "stream_event") return null;
    if (event.type === "assistant") {
      const content = event.message.content.filter((b) => !isBlock(b, "text") && !isBlock(b, "thinking"));
      if (content.length === event.message.content.length) return event;
      return content.length === 0 && !event.error ? null : { ...event, message: { ...event.message, content } };
    }
    if (event.type !== "user" || typeof event.message.content === "string") return event;
    const content = event.message.content.filter(
      (b) => !(isBlock(b, "tool_result") && (b as { is_error?: unknown }).is_error === true),
    );
    if (content.length === event.message.content.length) return event;
    return content.length === 0 ? null : { ...event, message: { ...event.message, content } };
  }
}
