/**
 * What an iteration said: the text of claude's last message in the turn (its main thread's: a
 * subagent's words are not claude's answer), and the model that wrote it. A last message that is
 * a tool call alone says nothing, and the loop goes on.
 */
import type { StreamEvent } from "../claude/stream-events.js";

export class LastMessage {
  text = "";
  model: string | null = null;
  private id: string | null = null;

  /** One of claude's events during the turn. */
  see(event: StreamEvent): void {
    if (event.type === "system" && event.subtype === "init") {
      // A turn begins (claude says init at every turn): nothing said yet, the model it starts with.
      this.text = "";
      this.id = null;
      this.model = event.model ?? null;
    }
    if (event.type !== "assistant" || event.parent_tool_use_id) return;
    // One message comes as several events (a block each): a new id is a new message.
    const id = event.message.id ?? null;
    if (id === null || id !== this.id) this.text = "";
    this.id = id;
    if (event.message.model) this.model = event.message.model;
    for (const block of event.message.content)
      if (block.type === "text" && typeof block.text === "string") this.text += `${this.text ? "\n" : ""}${block.text}`;
  }
}
