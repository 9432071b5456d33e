/**
 * Turns claude's stream events into what a person reads in the terminal. The live run and
 * `nudge session replay` both use it, so a replay looks exactly like the session did.
 *
 * With `--include-partial-messages` text appears as it is typed (PartialMessages) and each tool
 * call once; without, each whole assistant line is shown as it comes (recordings made before keep
 * replaying as they did). Subagents show a line when they start and one when they end; their own
 * words only with --verbose. The user's answers to claude's requests show as decision lines.
 */
import type { Turn } from "../store/manifest-schema.js";
import type { FinishedTurn } from "../live/frontend.js";
import {
  isSubagentTask,
  isText,
  isToolResult,
  isToolUse,
  type AssistantEvent,
  type StreamEvent,
  type ToolResult,
  type ToolUse,
} from "../claude/stream-events.js";
import { inertValue, visibleJson } from "../base/inert-text.js";
import { describeCheck } from "../loop/loop-report.js";
import { Decisions } from "./decisions.js";
import { firstLines, formatCost, formatDuration, formatStat, oneLine, thousands, turnOutcome } from "../base/format.js";
import { writeErr } from "./output.js";
import { turnDuration } from "../view/turn-summary.js";
import { MarkdownStream } from "./markdown/markdown-stream.js";
import { PartialMessages } from "./partial-messages.js";
import { colorEnabled, makeStyle, type Style } from "./style.js";
import { toolDetail } from "../claude/tool-detail.js";
import { compactionMark, isCompactSummary } from "../claude/compact-boundary.js";
import { tooLongLineBytes, tooLongNotice } from "../claude/transcript-lines.js";
import { CUT_MARK } from "../store/line-reducer.js";
import { imageLabel, imageWords } from "../live/prompt-images.js";

export interface RendererOptions {
  style: Style;
  /**
   * Where the conversation goes. Claude's strings are made visible before they are styled (see
   * render); the sink is the output layer's guard (writeOut, the Screen), so nothing here repeats it.
   */
  write: (text: string) => void;
  /** Show tool inputs and outputs in full-ish, thinking, and subagents' own words (--verbose). */
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
  /**
   * nudge's own lines about the conversation (tool calls, their errors and output, decisions, the
   * turn's end, retries), one line per call, without its newline. A live run sends them to stderr
   * with its other notices, so stdout holds claude's words alone; without it (a replay, whose
   * whole output is what was asked for) they go to `write` like the rest.
   */
  say?: (line: string) => void;
  /**
   * Show what the project's rules decided, read back from nudge's answers to claude's hook
   * calls (replay: paths relative to this repository root). A live run says each as it is made.
   */
  ruleDecisions?: { repoRoot: string };
  /**
   * Render claude's words as markdown (headings, lists, highlighted code…), fitted to this many
   * columns. Only with colour: without it (NO_COLOR, not a terminal) claude's markdown is shown as written.
   */
  markdown?: { columns: () => number };
}

/** A notice on stderr, coloured only if stderr is a terminal (stdout may be piped while it is not). */
export function stderrNotice(text: string): void {
  writeErr(`${makeStyle(colorEnabled(process.stderr)).yellow(text)}\n`);
}

/** The tools that run a subagent (Task, renamed Agent in claude 2.1). */
const SUBAGENT_TOOLS = new Set(["Task", "Agent"]);

/** A subagent, or a Bash command claude runs in the background: each ends with a line of its own. */
interface Subagent {
  /** What the end line calls it. */
  kind: "subagent" | "background command";
  description: string;
  /** Started in the background: its tool result only says it was launched. */
  background: boolean;
  ended: boolean;
}

export class EventRenderer {
  private seenInit = false;
  /** Nothing written yet, or the last write ended a line. */
  private atLineStart = true;
  private readonly shownTools = new Set<string>();
  private readonly subagents = new Map<string, Subagent>();
  private readonly partial: PartialMessages;
  private readonly decisions: Decisions;

  private readonly markdown: ((write: (text: string) => void) => MarkdownStream) | undefined;

  constructor(private readonly o: RendererOptions) {
    const md = o.style.enabled ? o.markdown : undefined;
    this.markdown = md && ((write) => new MarkdownStream({ write, columns: md.columns }));
    this.partial = new PartialMessages({
      style: o.style,
      verbose: o.verbose,
      markdown: this.markdown,
      sink: { write: (t) => this.write(t), endLine: () => this.endLine(), toolUse: (b) => this.toolUse(b) },
    });
    this.decisions = new Decisions({ style: o.style, cwd: o.cwd, ruleDecisions: o.ruleDecisions });
  }

  /** `cut`: bytes of its line left out when it was read (its long strings cut, see line-reducer.ts). */
  render(raw: StreamEvent, cut = 0): void {
    // Every string claude sent (text, thinking, tool names and inputs, results, errors) shown, never obeyed.
    const event = inertValue(raw);
    switch (event.type) {
      case "system":
        return this.system(event);
      case "stream_event":
        // A subagent's typing is not streamed: its start and end lines stand for it.
        if (!event.parent_tool_use_id) this.partial.event(event.event);
        return;
      case "assistant":
        if (event.parent_tool_use_id) return this.subagentSays(event, raw as AssistantEvent);
        event.message.content.forEach((block, i) => {
          if (isText(block) && block.text.trim()) {
            if (!this.partial.wasStreamed(event.message.id)) this.reply(block.text.trimEnd(), cut);
          } else if (isToolUse(block)) {
            this.toolUse(block, "", rawInput(raw as AssistantEvent, i));
          }
        });
        if (event.error) this.line(this.o.style.red(`✗ ${oneLine(String(event.error), 200)}`));
        return;
      case "user":
        // claude's transcript: text it adds for itself, and the summary a compaction goes on from.
        if (event.isMeta === true) return;
        if (isCompactSummary(event)) return this.line(this.o.style.dim(`  ⎿ the summary claude goes on from`));
        if (event.parent_tool_use_id) {
          if (this.o.verbose && typeof event.message.content !== "string") {
            for (const block of event.message.content) if (isToolResult(block)) this.toolResult(block, "  │ ");
          }
          return;
        }
        if (typeof event.message.content === "string") return this.prompt(event.isReplay, event.message.content, cut);
        for (const block of event.message.content) {
          if (isToolResult(block)) this.toolResult(block);
          else if (isText(block) && event.isReplay) this.prompt(true, block.text, cut);
        }
        if (event.isReplay && this.o.showPrompts) this.images(event.message.content);
        return;
      case "control_request":
        return this.decisions.request(event);
      case "control_response":
        for (const line of this.decisions.response(event)) this.line(line);
        return;
      case "result":
        this.partial.reset();
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
        const tooLong = tooLongLineBytes(event.text);
        if (tooLong !== null) this.o.notice(`! ${tooLongNotice(tooLong)}`);
        else if (event.text.trim()) this.o.notice(`! not JSON: ${oneLine(event.text, 120)}`);
        return;
      default:
        return;
    }
  }

  /** The turn was interrupted: claude's words so far end where they are (what follows is not shown; see InterruptedResults). */
  interrupted(): void {
    this.partial.cut();
  }

  /** One styled line of nudge's, on a line of its own; the newline stays outside the colour codes so a terminal never carries them over. */
  private line(text: string): void {
    // Claude's line is ended first, even when this goes to the other stream: both reach one terminal.
    this.endLine();
    if (this.o.say) this.o.say(text);
    else this.write(`${text}\n`);
  }

  /** Claude's reply; one too long to read whole (see line-reducer.ts) up to its cut, then what was left out (never the cut's own mark). */
  private reply(text: string, cut: number): void {
    const end = text.indexOf(CUT_MARK);
    this.words(end === -1 ? text : text.slice(0, end));
    if (end !== -1)
      this.line(
        this.o.style.dim(
          `  … ${cut > 0 ? `${thousands(cut)} more bytes` : "the rest"} not shown (the reply is cut here)`,
        ),
      );
  }

  /** Claude's own words, whole: stdout, always; as markdown unless they are already styled. */
  private words(text: string, asMarkdown = true): void {
    this.endLine();
    if (!this.markdown || !asMarkdown) return this.write(`${text}\n`);
    const markdown = this.markdown((t) => this.write(t));
    markdown.push(text);
    markdown.end();
    this.endLine();
  }

  private write(text: string): void {
    if (!text) return;
    // A cut string's mark is never shown as itself: wherever it is left (a tool's input), an ellipsis.
    this.o.write(text.includes(CUT_MARK) ? text.replaceAll(CUT_MARK, "…") : text);
    this.atLineStart = text.endsWith("\n");
  }

  /** Close a line streamed text left open. */
  private endLine(): void {
    if (!this.atLineStart) this.write("\n");
  }

  /**
   * A live turn's end line, the moment claude's result is in: number, outcome, duration, cost.
   * What the turn changed needs its snapshot's diff, so it follows under it (`turnChanges`).
   */
  turnFinished(turn: FinishedTurn): void {
    this.line(this.endOfTurn(turn, []));
  }

  /** Under a live turn's end line, once the turn is saved: what it changed, with its number (a queued turn's output may come between). */
  turnChanges(turn: Turn): void {
    this.line(this.o.style.dim(`  ⎿ turn ${turn.n} saved · ${formatStat(turn.patch)}`));
  }

  /** The line that closes a saved turn (a replay): number, outcome, duration, cost, what changed. */
  turnEnd(turn: Turn): void {
    const { style } = this.o;
    this.line(this.endOfTurn(turn, [formatStat(turn.patch)]));
    // An agentic loop's check, kept on the turn (in a replay; live, the loop says it as it runs).
    if (turn.check) {
      const passed = turn.check.exitCode === 0;
      this.line(
        (passed ? style.green : style.red)(
          `  ${passed ? "✓" : "✗"} check ${oneLine(turn.check.command, 60)}: ${describeCheck(turn.check)}`,
        ),
      );
    }
    // A verifier's turn (claude loop --verify) says what it found; its reason is claude's words, made inert.
    const verdict = turn.loop?.role === "verifier" ? turn.loop.verdict : null;
    if (verdict) {
      const why = verdict.pass ? "pass" : inertValue(oneLine(verdict.reason ?? "no verdict", 80));
      this.line(
        (verdict.pass ? style.green : style.red)(
          `  ${verdict.pass ? "✓" : "✗"} verifier of iteration ${turn.loop!.iteration}: ${why}`,
        ),
      );
    }
  }

  private endOfTurn(turn: FinishedTurn, more: string[]): string {
    const { style } = this.o;
    const mark = turn.status === "complete" && !turn.result?.isError ? style.green("●") : style.red("●");
    const parts = [
      `turn ${turn.n}`,
      turnOutcome(turn),
      formatDuration(turnDuration(turn)),
      formatCost(turn.result?.costUsd),
      ...more,
    ];
    return `${mark} ${style.dim(parts.join(" · "))}`;
  }

  private system(event: Extract<StreamEvent, { type: "system" }>): void {
    if (event.subtype === "init") {
      // claude repeats init at every turn; once is news, after that it is noise.
      if (!this.seenInit && this.o.verbose) this.line(this.o.style.dim(`claude ${event.model ?? ""}`));
      this.seenInit = true;
      return;
    }
    // claude's transcript's (its own sessions): a recorded turn's header says it already.
    if (event.subtype === "compact_boundary" && "compactMetadata" in event) {
      this.line(this.o.style.dim(`── ${compactionMark(event)} ──`));
    } else if (event.subtype === "api_retry") {
      const status = event.error_status ? ` (HTTP ${event.error_status})` : "";
      const wait = event.retry_delay_ms ? ` in ${formatDuration(event.retry_delay_ms)}` : "";
      const attempt = event.attempt ? ` ${event.attempt}${event.max_retries ? `/${event.max_retries}` : ""}` : "";
      this.line(this.o.style.yellow(`↻ API error${status}, retry${attempt}${wait}`));
    } else if (event.subtype === "task_started") {
      const id = typeof event.tool_use_id === "string" ? event.tool_use_id : undefined;
      const background = event.is_backgrounded === true;
      // A Bash command that merely runs long is already on screen as its tool call.
      const kind = isSubagentTask(event) ? "subagent" : background ? "background command" : undefined;
      if (!id || !kind) return;
      const known = this.subagents.get(id);
      const description = typeof event.description === "string" ? event.description : (known?.description ?? "");
      this.subagents.set(id, { kind, description, background, ended: known?.ended ?? false });
    } else if (event.subtype === "task_notification") {
      const id = typeof event.tool_use_id === "string" ? event.tool_use_id : undefined;
      const status = typeof event.status === "string" ? event.status : "completed";
      const usage = event.usage as { duration_ms?: unknown } | undefined;
      this.subagentEnds(id, status, typeof usage?.duration_ms === "number" ? usage.duration_ms : undefined);
    }
  }

  private prompt(isReplay: boolean | undefined, text: string, cut = 0): void {
    // claude's own slash commands (/compact) echo their output where the prompt would be: it is
    // claude's answer, not something the user typed.
    const local = /^<local-command-(stdout|stderr)>([\s\S]*)<\/local-command-\1>$/.exec(text.trim());
    if (local) {
      if (isReplay !== false && local[2]!.trim()) this.line(this.o.style.dim(`  ⎿ ${oneLine(local[2]!, 200)}`));
      return;
    }
    // A slash command typed in claude's own UI, as its transcript records it: by its name.
    const command = /^<command-name>([^<]*)<\/command-name>/.exec(text.trim());
    const shown = command ? command[1]!.trim() : text;
    if (!this.o.showPrompts || isReplay === false) return;
    // A prompt too long to read whole: its start, and what was left out (never the cut's own mark).
    const end = shown.indexOf(CUT_MARK);
    this.line(`${this.o.style.bold(this.o.style.cyan("›"))} ${end === -1 ? shown : shown.slice(0, end)}`);
    if (end !== -1)
      this.line(
        this.o.style.dim(
          `  … ${cut > 0 ? `${thousands(cut)} more bytes` : "the rest"} not shown (the prompt is cut here)`,
        ),
      );
  }

  /** The images a prompt carried, by the names its text gives them: `⎿ [image: shot.png 120 KB]`. */
  private images(content: Array<{ type: string }>): void {
    const images = content.filter((b): b is { type: "image"; source?: { data?: unknown } } => b.type === "image");
    if (images.length === 0) return;
    const text = content.map((b) => (isText(b) ? b.text : "")).join("\n");
    const names = imageWords(text).map((w) => w.file.split("/").at(-1)!);
    const shown = images.map((image, i) => {
      return imageLabel(names[i] ?? `#${i + 1}`, typeof image.source?.data === "string" ? image.source.data : "");
    });
    this.line(this.o.style.dim(`  ⎿ ${shown.join(" ")}`));
  }

  /**
   * A tool call, once per id: streamed, it is known before its assistant line comes. `input`: the
   * call's input as claude sent it (the block's strings are already escaped; escaping them again
   * as JSON would double every backslash). A streamed call's input is parsed from its JSON text,
   * which holds no raw control, so it is the input as sent.
   */
  private toolUse(block: ToolUse, indent = "", input: unknown = block.input): void {
    if (block.id) {
      if (this.shownTools.has(block.id)) return;
      this.shownTools.add(block.id);
    }
    const detail = toolDetail(block, this.o.cwd);
    const style = indent ? this.o.style.dim : this.o.style.cyan;
    this.line(style(`${indent}⏺ ${block.name}${detail ? `(${detail})` : ""}`));
    if (!indent && SUBAGENT_TOOLS.has(block.name) && block.id && !this.subagents.has(block.id)) {
      const description = typeof block.input.description === "string" ? block.input.description : "";
      this.subagents.set(block.id, { kind: "subagent", description, background: false, ended: false });
    }
    if (this.o.verbose) {
      for (const line of firstLines(visibleJson(input, 2), 12)) this.line(this.o.style.dim(`${indent}  ${line}`));
    }
  }

  private toolResult(block: ToolResult, indent = ""): void {
    const text = toolResultText(block.content);
    const subagent = indent ? undefined : this.subagents.get(block.tool_use_id);
    if (subagent && !subagent.background) {
      this.subagentEnds(
        block.tool_use_id,
        block.is_error ? "failed" : "completed",
        undefined,
        block.is_error ? text : undefined,
      );
      if (block.is_error) return;
    }
    if (block.is_error) {
      if (this.decisions.wasRefused(block.tool_use_id)) return;
      for (const line of firstLines(text, 4)) this.line(this.o.style.red(`${indent}  ⎿ ${line}`));
    } else if (this.o.verbose && text) {
      for (const line of firstLines(text, 10)) this.line(this.o.style.dim(`${indent}  ⎿ ${line}`));
    }
  }

  /** A subagent's own message: shown, dimmed and indented, only with --verbose. */
  private subagentSays(event: AssistantEvent, raw: AssistantEvent): void {
    if (!this.o.verbose) return;
    event.message.content.forEach((block, i) => {
      if (isText(block) && block.text.trim())
        for (const line of block.text.trimEnd().split("\n")) this.words(this.o.style.dim(`  │ ${line}`), false);
      else if (isToolUse(block)) this.toolUse(block, "  │ ", rawInput(raw, i));
    });
  }

  /** The line that says a subagent is done (once, whichever of its notification or tool result comes first). */
  private subagentEnds(id: string | undefined, status: string, durationMs?: number, error?: string): void {
    const agent = id ? this.subagents.get(id) : undefined;
    if (!agent || agent.ended) return;
    agent.ended = true;
    const { style } = this.o;
    const took = durationMs !== undefined ? ` · ${formatDuration(durationMs)}` : "";
    const what = agent.description ? `: ${oneLine(agent.description, 80)}` : "";
    if (status === "completed") this.line(style.dim(`  ⎿ ${agent.kind} done${what}${took}`));
    else this.line(style.red(`  ⎿ ${agent.kind} ${status}${what}${took}${error ? ` · ${oneLine(error, 200)}` : ""}`));
  }
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

/** The input of the tool call at `index` of an assistant event as claude sent it, before `inertValue`. */
function rawInput(raw: AssistantEvent, index: number): unknown {
  const block = raw.message.content[index];
  return block && isToolUse(block) ? block.input : undefined;
}
