/**
 * Text as claude types it (`--include-partial-messages`): the API's own stream events, block by
 * block. Measured with 2.1.329: each block's deltas come first, then the whole `assistant` line
 * holding that block, then the block's `content_block_stop`. So a message whose `message_start`
 * was seen has had its text shown already (the assistant line must not show it again), and a tool
 * call is shown once, by id, from whichever of the two tells its input first.
 *
 * Trailing whitespace is held back until something visible follows, and dropped at the block's
 * end, so a streamed block prints exactly what the whole message would have: `text.trimEnd()`.
 */
import type { ToolUse } from "../claude/stream-events.js";
import type { MarkdownStream } from "./markdown/markdown-stream.js";
import type { Style } from "./style.js";

/** Where the streamed text goes: the renderer's output, which knows whether a line is open. */
export interface StreamSink {
  write(text: string): void;
  /** Start a line of its own if the output is mid-line. */
  endLine(): void;
  /** Show a tool call, complete with its input (once per id: the renderer keeps count). */
  toolUse(block: ToolUse): void;
}

type Open =
  | { kind: "text" | "thinking"; held: string; wrote: boolean; markdown?: MarkdownStream }
  | { kind: "tool_use"; id: string; name: string; json: string }
  | { kind: "other" };

interface ApiEvent {
  type: string;
  index?: number;
  message?: { id?: string };
  content_block?: { type?: string; id?: string; name?: string };
  delta?: { type?: string; text?: string; thinking?: string; partial_json?: string };
}

export class PartialMessages {
  private readonly streamed = new Set<string>();
  private readonly open = new Map<number, Open>();

  constructor(
    private readonly o: {
      style: Style;
      verbose: boolean;
      sink: StreamSink;
      /** Render claude's text as markdown, into this function's writes (absent: the text as claude wrote it). */
      markdown?: (write: (text: string) => void) => MarkdownStream;
    },
  ) {}

  /** Whether this message's text was shown as it streamed. */
  wasStreamed(messageId: string | undefined): boolean {
    return messageId !== undefined && this.streamed.has(messageId);
  }

  /** A turn is over: forget its messages. */
  reset(): void {
    this.streamed.clear();
    this.open.clear();
  }

  /**
   * The turn was interrupted: what was typed so far ends here (a line held back for its markdown
   * is written), and the blocks still open are forgotten, so nothing more of them is shown.
   */
  cut(): void {
    for (const open of this.open.values()) {
      if ((open.kind === "text" || open.kind === "thinking") && open.wrote) open.markdown?.end();
    }
    this.open.clear();
    this.o.sink.endLine();
  }

  /** One of the main agent's stream events (a subagent's are not streamed). */
  event(raw: { type: string }): void {
    const e = raw as ApiEvent;
    switch (e.type) {
      case "message_start":
        if (e.message?.id) this.streamed.add(e.message.id);
        this.open.clear();
        return;
      case "content_block_start":
        return this.start(e);
      case "content_block_delta":
        return this.delta(e);
      case "content_block_stop":
        return this.stop(e.index ?? 0);
      default:
        return;
    }
  }

  private start(e: ApiEvent): void {
    const block = e.content_block ?? {};
    const index = e.index ?? 0;
    if (block.type === "text")
      this.open.set(index, {
        kind: "text",
        held: "",
        wrote: false,
        markdown: this.o.markdown?.((t) => this.o.sink.write(t)),
      });
    else if (block.type === "thinking") this.open.set(index, { kind: block.type, held: "", wrote: false });
    else if (block.type === "tool_use" && block.id)
      this.open.set(index, { kind: "tool_use", id: block.id, name: block.name ?? "tool", json: "" });
    else this.open.set(index, { kind: "other" });
  }

  private delta(e: ApiEvent): void {
    const open = this.open.get(e.index ?? 0);
    const d = e.delta ?? {};
    if (!open) return;
    if (open.kind === "tool_use" && d.type === "input_json_delta") open.json += d.partial_json ?? "";
    else if (open.kind === "text" && d.type === "text_delta") this.show(open, d.text ?? "");
    else if (open.kind === "thinking" && d.type === "thinking_delta" && this.o.verbose)
      this.show(open, d.thinking ?? "");
  }

  private show(open: Extract<Open, { kind: "text" | "thinking" }>, text: string): void {
    const all = open.held + text;
    const visible = all.trimEnd();
    open.held = all.slice(visible.length);
    if (!visible) return;
    if (!open.wrote) {
      this.o.sink.endLine();
      if (open.kind === "thinking") this.o.sink.write(this.o.style.dim("✻ "));
    }
    open.wrote = true;
    if (open.markdown) open.markdown.push(visible);
    else this.o.sink.write(open.kind === "thinking" ? dimLines(visible, this.o.style) : visible);
  }

  private stop(index: number): void {
    const open = this.open.get(index);
    this.open.delete(index);
    if (!open) return;
    if ((open.kind === "text" || open.kind === "thinking") && open.wrote) {
      open.markdown?.end();
      this.o.sink.endLine();
    }
    if (open.kind === "tool_use")
      this.o.sink.toolUse({ type: "tool_use", id: open.id, name: open.name, input: parseInput(open.json) });
  }
}

/** Dim each line's text on its own, so no newline ever sits inside colour codes. */
function dimLines(text: string, style: Style): string {
  return text
    .split("\n")
    .map((line) => (line ? style.dim(line) : line))
    .join("\n");
}

function parseInput(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
