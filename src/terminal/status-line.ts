/**
 * The line at the bottom of the screen while claude works: a spinner, what is happening
 * ("requesting", the tool running, a subagent), and how long the turn has taken. It lives in the
 * screen's "status" slot, so claude's words scroll above it and a question hides it. Only for a
 * terminal that can move the cursor, and never when stdout is not one (the caller decides:
 * `enabled`), so piped output and replays to a file never carry it.
 */
import type { StreamEvent } from "../claude/stream-events.js";
import { isSubagentTask, isToolResult, isToolUse } from "../claude/stream-events.js";
import { visible } from "../inert-text.js";
import { AnsweredRequests } from "./answered-requests.js";
import { toolDetail } from "../claude/tool-detail.js";
import { oneLine } from "./format.js";
import type { Screen } from "./screen.js";
import type { Style } from "./style.js";
import { fitWidth } from "./text-width.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface StatusLineOptions {
  screen: Screen;
  style: Style;
  /** False: every call is a no-op (stdout not a terminal, TERM=dumb). */
  enabled: boolean;
  /** Tool paths are shown relative to this. */
  cwd: string;
  now?: () => number;
  /** How often the spinner turns (ms). */
  intervalMs?: number;
}

export class StatusLine {
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private activity = "";
  private frame = 0;
  private readonly answered: AnsweredRequests;

  constructor(private readonly o: StatusLineOptions) {
    this.answered = new AnsweredRequests(o.cwd);
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** A turn begins: show the line until `stop()`. */
  start(activity = "starting"): void {
    if (!this.o.enabled) return;
    this.startedAt = this.now();
    this.activity = activity;
    clearInterval(this.timer);
    this.timer = setInterval(() => this.tick(), this.o.intervalMs ?? 100);
    this.timer.unref();
    this.draw();
  }

  /** Follow the stream: each event that says what claude is doing now updates the line. */
  observe(event: StreamEvent): void {
    // Requests are remembered even between turns' lines: an answer must find its question.
    const answered = this.answered.activity(event);
    if (!this.running) return;
    const found = answered ?? activityOf(event, this.o.cwd);
    // Tool names, a status, a subagent's description: claude's words, shown, never obeyed.
    const next = found === null ? null : visible(found);
    if (next !== null && next !== this.activity) {
      this.activity = next;
      this.draw();
    }
  }

  /** The turn is over: the line goes, leaving nothing behind. */
  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.o.screen.set("status", null);
  }

  /** The line as it would be drawn now, unstyled parts included (for tests). */
  text(): string {
    const { style } = this.o;
    const elapsed = formatElapsed(this.now() - this.startedAt);
    const line = `${FRAMES[this.frame % FRAMES.length]} ${this.activity} · ${elapsed}`;
    const hint = " · Ctrl-C to interrupt";
    const width = this.o.screen.columns - 1;
    return line.length + hint.length <= width ? `${style.cyan(line)}${style.dim(hint)}` : style.cyan(fitWidth(line, width));
  }

  private tick(): void {
    this.frame++;
    this.draw();
  }

  private draw(): void {
    this.o.screen.set("status", { lines: [this.text()] });
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }
}

/** What an event says claude is doing, or null when it says nothing new. Subagents' own events count as the subagent's. */
export function activityOf(event: StreamEvent, cwd: string): string | null {
  switch (event.type) {
    case "system":
      if (event.subtype === "status") return typeof event.status === "string" ? event.status : null;
      if (event.subtype === "api_retry") return `retrying after an API error${event.attempt ? ` (attempt ${event.attempt})` : ""}`;
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

export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
