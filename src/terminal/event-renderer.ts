/**
 * Turns claude's stream events into what a person reads in the terminal. The live run and
 * `nudge session replay` both use it, so a replay looks exactly like the session did.
 */
import path from "node:path";
import type { Turn } from "../bundle/manifest-schema.js";
import {
  isText,
  isToolResult,
  isToolUse,
  type StreamEvent,
  type ToolResult,
  type ToolUse,
} from "../claude/stream-events.js";
import { firstLines, formatCost, formatDuration, formatStat, oneLine } from "./format.js";
import { colorEnabled, makeStyle, type Style } from "./style.js";

export interface RendererOptions {
  style: Style;
  write: (text: string) => void;
  /** Show tool inputs and outputs in full-ish (--verbose). */
  verbose: boolean;
  /** Print the user's prompts (replay); a live run has them on screen already. */
  showPrompts: boolean;
  /** Paths in tool lines are shown relative to this. */
  cwd: string;
  /**
   * nudge's own notices about the stream (a line that is not JSON), unstyled, one per call. They
   * are not claude's words, so they must not land in stdout with them (replay: `stderrNotice`).
   */
  notice: (text: string) => void;
}

/** A notice on stderr, coloured only if stderr is a terminal (stdout may be piped while it is not). */
export function stderrNotice(text: string): void {
  process.stderr.write(`${makeStyle(colorEnabled(process.stderr)).yellow(text)}\n`);
}

export class EventRenderer {
  private seenInit = false;

  constructor(private readonly o: RendererOptions) {}

  render(event: StreamEvent): void {
    switch (event.type) {
      case "system":
        return this.system(event);
      case "assistant":
        for (const block of event.message.content) {
          if (isText(block) && block.text.trim()) this.o.write(`${block.text.trimEnd()}\n`);
          else if (isToolUse(block)) this.toolUse(block);
        }
        if (event.error) this.line(this.o.style.red(`✗ ${oneLine(String(event.error), 200)}`));
        return;
      case "user":
        if (typeof event.message.content === "string") return this.prompt(event.isReplay, event.message.content);
        for (const block of event.message.content) {
          if (isToolResult(block)) this.toolResult(block);
          else if (isText(block) && event.isReplay) this.prompt(true, block.text);
        }
        return;
      case "result":
        if (event.terminal_reason?.startsWith("aborted")) {
          this.line(this.o.style.yellow("⏸ turn interrupted"));
        } else if (event.is_error) {
          const detail = event.result ?? (event.errors ?? []).map(String).join("; ");
          // An API error ends the turn with subtype "success" and is_error: name the real reason.
          const label = event.subtype === "success" ? (event.terminal_reason ?? "error") : event.subtype;
          this.line(this.o.style.red(`✗ ${label}${detail ? `: ${oneLine(detail, 300)}` : ""}`));
        }
        return;
      case "invalid":
        if (event.text.trim()) this.o.notice(`! not JSON: ${oneLine(event.text, 120)}`);
        return;
      default:
        return;
    }
  }

  /** One styled line; the newline stays outside the colour codes so a terminal never carries them over. */
  private line(text: string): void {
    this.o.write(`${text}\n`);
  }

  /** The line that closes a turn: number, duration, cost, what changed. */
  turnEnd(turn: Turn): void {
    const { style } = this.o;
    const mark = turn.status === "complete" && !turn.result?.isError ? style.green("●") : style.red("●");
    const parts = [
      `turn ${turn.n}`,
      turn.status === "complete" ? (turn.result?.subtype ?? "done") : turn.status,
      formatDuration(turn.result?.durationMs ?? Date.parse(turn.endedAt) - Date.parse(turn.startedAt)),
      formatCost(turn.result?.costUsd),
      formatStat(turn.patch),
    ];
    this.o.write(`${mark} ${style.dim(parts.join(" · "))}\n`);
  }

  private system(event: Extract<StreamEvent, { type: "system" }>): void {
    if (event.subtype === "init") {
      // claude repeats init at every turn; once is news, after that it is noise.
      if (!this.seenInit && this.o.verbose) this.line(this.o.style.dim(`claude ${event.model ?? ""}`));
      this.seenInit = true;
      return;
    }
    if (event.subtype === "api_retry") {
      const status = event.error_status ? ` (HTTP ${event.error_status})` : "";
      const wait = event.retry_delay_ms ? ` in ${formatDuration(event.retry_delay_ms)}` : "";
      const attempt = event.attempt ? ` ${event.attempt}${event.max_retries ? `/${event.max_retries}` : ""}` : "";
      this.line(this.o.style.yellow(`↻ API error${status}, retry${attempt}${wait}`));
    }
  }

  private prompt(isReplay: boolean | undefined, text: string): void {
    if (this.o.showPrompts && isReplay !== false) this.o.write(`${this.o.style.bold(this.o.style.cyan("›"))} ${text}\n`);
  }

  private toolUse(block: ToolUse): void {
    const detail = toolDetail(block, this.o.cwd);
    this.line(this.o.style.cyan(`⏺ ${block.name}${detail ? `(${detail})` : ""}`));
    if (this.o.verbose) {
      for (const line of firstLines(JSON.stringify(block.input, null, 2), 12)) this.line(this.o.style.dim(`  ${line}`));
    }
  }

  private toolResult(block: ToolResult): void {
    const text = toolResultText(block.content);
    if (block.is_error) {
      for (const line of firstLines(text, 4)) this.line(this.o.style.red(`  ⎿ ${line}`));
    } else if (this.o.verbose && text) {
      for (const line of firstLines(text, 10)) this.line(this.o.style.dim(`  ⎿ ${line}`));
    }
  }
}

/** The one detail that says what a tool call does: a path, a command, a pattern. */
export function toolDetail(block: ToolUse, cwd: string): string {
  const input = block.input;
  const str = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : undefined);
  const rel = (p: string) => (path.isAbsolute(p) && p.startsWith(cwd + path.sep) ? path.relative(cwd, p) : p);
  const filePath = str("file_path") ?? str("notebook_path");
  if (filePath) return rel(filePath);
  if (str("command")) return oneLine(str("command")!, 100);
  if (str("pattern")) return oneLine(`${str("pattern")}${str("path") ? ` in ${rel(str("path")!)}` : ""}`, 100);
  if (str("url")) return str("url")!;
  if (str("query")) return oneLine(str("query")!, 100);
  if (str("description")) return oneLine(str("description")!, 100);
  const first = Object.values(input).find((v) => typeof v === "string") as string | undefined;
  return first ? oneLine(first, 80) : "";
}

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((c) => (c && typeof c === "object" && "text" in c && typeof c.text === "string" ? c.text : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}
