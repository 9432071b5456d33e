/**
 * One turn's lines (claude's, with nudge's answers merged in by time) as the entries a reader sees:
 * prompts, Claude's text, thinking, each tool call with its result, subagents nested under the
 * call that ran them, permission questions and answers, rule decisions, retries and errors. A line
 * nudge does not know is a `raw` entry: a newer claude never breaks the page.
 */
import type { PlayLine } from "../store/input-merge.js";
import { KEPT_STRING_BYTES, lineText, parseEventLine, parseLine } from "../claude/ndjson.js";
import {
  isText,
  isToolResult,
  isToolUse,
  toStreamEvent,
  type AssistantEvent,
  type StreamEvent,
  type SystemEvent,
  type UserEvent,
} from "../claude/stream-events.js";
import { toolDetail } from "../claude/tool-detail.js";
import { compactionMark, isCompactSummary } from "../claude/compact-boundary.js";
import { tooLongLineBytes, tooLongNotice } from "../claude/transcript-lines.js";
import { formatDuration } from "../base/format.js";
import { inertValue } from "../base/inert-text.js";
import { CUT_MARK } from "../store/line-reducer.js";
import { clipRead } from "./clip.js";
import { RequestEntries } from "./entry-requests.js";
import type { ClippedText, Entry } from "./view-types.js";

type Tool = Extract<Entry, { kind: "tool" }>;

export interface EntryOptions {
  full: boolean;
  /** The session's work tree: paths in tool details are shown relative to it. */
  cwd: string;
  repoRoot: string;
  /** The turn's prompt, first; claude's echo of it is not shown again. */
  prompt: string | null;
  /** The turn is in flight: text streamed so far and not yet in an assistant line is shown too. */
  live: boolean;
  /** Subagents' own transcripts (claude's side folder), by the tool call that ran each: nested under it. */
  subagents?: ReadonlyMap<string, PlayLine[]>;
}

/** System lines that say nothing a reader needs (claude's start, task progress, status pings). */
const QUIET_SYSTEM = new Set([
  "init",
  "status",
  "thinking_tokens",
  "task_started",
  "task_progress",
  "task_updated",
  "task_notification",
  "background_tasks_changed",
  "hook_started",
  "hook_progress",
  "hook_response",
  "files_persisted",
  // claude's transcript (its own UI's sessions): a turn's bookkeeping
  "stop_hook_summary",
  "turn_duration",
]);

/**
 * Records of claude's transcript that are no part of the conversation (its own UI's sessions take
 * their lines from it): its modes, file history, the API requests' shapes, attachments, costs.
 * A stream line never names `sessionId` or `parentUuid` (it says session_id).
 */
function transcriptBookkeeping(raw: unknown): boolean {
  if (raw === null || typeof raw !== "object") return false;
  const type = (raw as { type?: unknown }).type;
  return type === "file-history-snapshot" || type === "file-history-delta" || "sessionId" in raw || "parentUuid" in raw;
}

export function buildEntries(lines: PlayLine[], o: EntryOptions): Entry[] {
  const b = new EntryBuilder(o);
  for (const line of lines) b.line(line);
  // Every string is a session's: its control characters (ANSI, bidi overrides) shown, never obeyed.
  return inertValue(unmarked(b.finish()));
}

class EntryBuilder {
  private readonly entries: Entry[] = [];
  private readonly tools = new Map<string, Tool>();
  private readonly requests: RequestEntries;
  private promptEchoed = false;
  /** Text of the main agent's block being streamed, until its assistant line comes. */
  private streaming: string | null = null;
  /** Where the line being read lies whole, when it was read reduced (its long strings cut). */
  private whole: PlayLine["whole"];

  constructor(private readonly o: EntryOptions) {
    this.requests = new RequestEntries({ cwd: o.cwd, repoRoot: o.repoRoot });
    if (o.prompt !== null) this.entries.push({ kind: "prompt", text: o.prompt });
  }

  line(line: PlayLine, under?: string): void {
    // A line read reduced is parsed as it is; else a reduced parse (strings cut at 16 KB) is plenty for a clipped view.
    const json = this.o.full || line.whole ? parseLine(line.bytes) : parseEventLine(line.bytes);
    const event = toStreamEvent(json, "");
    // A subagent's transcript names no parent: its lines belong under the call that ran it.
    if (under && (event.type === "assistant" || event.type === "user") && !event.parent_tool_use_id)
      event.parent_tool_use_id = under;
    // Of what nudge wrote, only the answers are news: the prompts are claude's echo and the turn's.
    if (line.input && event.type !== "control_response") return;
    // A download is offered from claude's stream only (nudge's own lines are in another file).
    this.whole = line.input ? undefined : line.whole;
    this.event(event, line);
  }

  private clip(text: string): ClippedText {
    return clipRead(text, this.o.full, this.whole);
  }

  finish(): Entry[] {
    if (this.o.live && this.streaming?.trim())
      this.entries.push({ kind: "text", markdown: this.streaming.trimEnd(), parent: null });
    return this.entries;
  }

  private add(entry: Entry, parent: string | null | undefined): void {
    const tool = parent ? this.tools.get(parent) : undefined;
    if (tool) tool.children.push(entry);
    else this.entries.push(entry);
  }

  private event(event: StreamEvent, line: PlayLine): void {
    switch (event.type) {
      case "assistant":
        return this.assistant(event);
      case "user":
        return this.user(event);
      case "stream_event":
        return this.partial(
          event.event as { type: string; content_block?: { type?: string }; delta?: { type?: string; text?: string } },
          event.parent_tool_use_id,
        );
      case "control_request": {
        const entry = this.requests.request(event);
        if (entry) this.entries.push(entry);
        return;
      }
      case "control_response": {
        const entry = this.requests.response(event);
        if (entry) this.entries.push(entry);
        return;
      }
      case "result":
        if (event.terminal_reason?.startsWith("aborted")) this.interrupted();
        else if (event.is_error) {
          const detail = event.result ?? (event.errors ?? []).map(String).join("; ");
          const label = event.subtype === "success" ? (event.terminal_reason ?? "error") : event.subtype;
          this.entries.push({ kind: "notice", level: "error", text: `${label}${detail ? `: ${detail}` : ""}` });
        }
        return;
      case "system":
        return this.system(event, line);
      case "other":
        return transcriptBookkeeping(event.raw) ? undefined : this.raw(line);
      case "invalid":
        return this.raw(line);
    }
  }

  private assistant(event: AssistantEvent): void {
    const parent = event.parent_tool_use_id ?? null;
    if (!parent) this.streaming = null;
    for (const block of event.message.content) {
      if (isText(block)) {
        if (block.text.trim()) this.add({ kind: "text", markdown: block.text.trimEnd(), parent }, parent);
      } else if (block.type === "thinking") {
        const text = (block as { thinking?: unknown }).thinking;
        if (typeof text === "string" && text.trim()) this.add({ kind: "thinking", text, parent }, parent);
      } else if (isToolUse(block)) {
        if (this.tools.has(block.id)) continue;
        const tool: Tool = {
          kind: "tool",
          id: block.id,
          name: block.name,
          input: this.clip(JSON.stringify(block.input, null, 2)),
          detail: toolDetail(block, this.o.cwd),
          result: null,
          children: [],
          parent,
        };
        this.tools.set(block.id, tool);
        this.add(tool, parent);
        for (const l of this.o.subagents?.get(block.id) ?? []) this.line(l, block.id);
      } else if (block.type !== "redacted_thinking") {
        this.add({ kind: "raw", line: this.clip(JSON.stringify(block)) }, parent);
      }
    }
    if (event.error)
      this.add(
        {
          kind: "notice",
          level: "error",
          text: typeof event.error === "string" ? event.error : JSON.stringify(event.error),
        },
        parent,
      );
  }

  private user(event: UserEvent): void {
    // claude's transcript: text claude adds for itself (a caveat before a slash command's output).
    if (event.isMeta === true) return;
    const parent = event.parent_tool_use_id ?? null;
    const content = event.message.content;
    if (isCompactSummary(event)) {
      const text = typeof content === "string" ? content : content.map((b) => (isText(b) ? b.text : "")).join("\n");
      this.entries.push({ kind: "notice", level: "info", text: `the summary claude goes on from: ${text.trim()}` });
      return;
    }
    if (typeof content === "string") return parent ? undefined : this.userText(content);
    for (const block of content) {
      if (isToolResult(block)) {
        const tool = this.tools.get(block.tool_use_id);
        const result = { content: this.clip(resultText(block.content)), isError: block.is_error === true };
        if (tool) tool.result = result;
        else
          this.add(
            {
              kind: "notice",
              level: block.is_error ? "error" : "info",
              text: `result of an unseen tool call: ${result.content.text}`,
            },
            parent,
          );
      } else if (isText(block) && !parent) {
        this.userText(block.text);
      }
    }
  }

  /** The turn was interrupted: said once, though claude's message and its result both say so. */
  private interrupted(): void {
    const last = this.entries.at(-1);
    if (last?.kind === "notice" && last.text === "turn interrupted") return;
    this.entries.push({ kind: "notice", level: "warn", text: "turn interrupted" });
  }

  /** A user message that is no tool result: the prompt's echo, a slash command's output, a queued prompt. */
  private userText(text: string): void {
    const local = /^<local-command-(stdout|stderr)>([\s\S]*)<\/local-command-\1>$/.exec(text.trim());
    if (local) {
      if (local[2]!.trim())
        this.entries.push({ kind: "notice", level: local[1] === "stderr" ? "warn" : "info", text: local[2]!.trim() });
      return;
    }
    // A slash command typed in claude's own UI, as its transcript records it.
    const command = /^<command-name>([^<]*)<\/command-name>/.exec(text.trim());
    if (command) {
      this.entries.push({ kind: "mark", text: command[1]!.trim() });
      return;
    }
    // claude's own messages in the user's place (<task-notification>…): news, not a prompt.
    if (/^<([a-z][a-z-]*)>[\s\S]*<\/\1>$/.test(text.trim())) {
      this.entries.push({ kind: "notice", level: "info", text: text.trim() });
      return;
    }
    // claude's record of a Stop or Ctrl-C, written in the user's place: a notice, not a prompt (QA).
    if (/^\[Request interrupted by user[^\]]*\]$/.test(text.trim())) return this.interrupted();
    if (!this.promptEchoed && this.echoesPrompt(text)) {
      this.promptEchoed = true;
      return;
    }
    if (text.trim()) this.entries.push({ kind: "prompt", text });
  }

  /** The turn's prompt, or (its line read with long strings cut at 16 KB) its first part. */
  private echoesPrompt(text: string): boolean {
    const prompt = this.o.prompt;
    if (prompt === null || text === prompt) return text === prompt;
    return text.length >= KEPT_STRING_BYTES / 4 && text.length < prompt.length && prompt.startsWith(text);
  }

  private partial(
    e: { type: string; content_block?: { type?: string }; delta?: { type?: string; text?: string } },
    parent: string | null | undefined,
  ): void {
    // A saved turn's whole assistant lines follow their deltas: only a turn in flight needs these.
    if (!this.o.live || parent) return;
    if (e.type === "content_block_start") this.streaming = e.content_block?.type === "text" ? "" : null;
    else if (e.type === "content_block_delta" && e.delta?.type === "text_delta" && this.streaming !== null)
      this.streaming += e.delta.text ?? "";
  }

  private system(event: SystemEvent, line: PlayLine): void {
    if (event.subtype === "api_retry") {
      const status = event.error_status ? ` (HTTP ${event.error_status})` : "";
      const wait = event.retry_delay_ms ? ` in ${formatDuration(event.retry_delay_ms)}` : "";
      const attempt = event.attempt ? ` ${event.attempt}${event.max_retries ? `/${event.max_retries}` : ""}` : "";
      this.entries.push({ kind: "notice", level: "warn", text: `API error${status}, retry${attempt}${wait}` });
    } else if (event.subtype === "compact_boundary") {
      this.entries.push({ kind: "mark", text: compactionMark(event) });
    } else if (!QUIET_SYSTEM.has(event.subtype)) {
      this.raw(line);
    }
  }

  private raw(line: PlayLine): void {
    const text = lineText(line.bytes); // invalid UTF-8 decodes to replacement characters
    const tooLong = tooLongLineBytes(text);
    if (tooLong !== null)
      return void this.entries.push({ kind: "notice", level: "warn", text: tooLongNotice(tooLong) });
    // A reduced line's cut strings show here as the escape itself.
    if (text.trim())
      this.entries.push({ kind: "raw", line: this.clip(this.whole ? text.replaceAll("\\uffff", CUT_MARK) : text) });
  }
}

/** A text cut when its line was read (not one of the clipped ones, which say so): "…" where it was cut. */
function unmarked<T>(value: T): T {
  if (typeof value === "string") return (value.includes(CUT_MARK) ? value.replaceAll(CUT_MARK, "…") : value) as T;
  if (Array.isArray(value)) return value.map(unmarked) as T;
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unmarked(v)])) as T;
  return value;
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? "" : JSON.stringify(content);
  return content
    .map((c: { type?: unknown; text?: unknown }) =>
      typeof c?.text === "string" ? c.text : c?.type === "image" ? "[image]" : "",
    )
    .filter(Boolean)
    .join("\n");
}
