/**
 * The line at the bottom of the screen while claude works: a spinner, what is happening
 * ("requesting", the tool running, a subagent), and how long the turn has taken. It lives in the
 * screen's "status" slot, so claude's words scroll above it; a question shows under it. Only for a
 * terminal that can move the cursor, and never when stdout is not one (the caller decides:
 * `enabled`), so piped output and replays to a file never carry it.
 */
import type { StreamEvent } from "../claude/stream-events.js";
import { visible } from "../base/inert-text.js";
import { formatElapsed } from "../base/format.js";
import { activityOf, AnsweredRequests } from "../live/activity.js";
import { ContextUse } from "./context-use.js";
import type { Screen } from "./screen.js";
import type { Style } from "./style.js";
import { fitWidth } from "../base/text-width.js";

const WAITING = "waiting for your answer";
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
  /** The permission mode's label ("" for the default mode). */
  private mode = "";
  private readonly answered: AnsweredRequests;
  /** How full claude's context is, from the latest usage claude reported (kept between turns). */
  readonly context = new ContextUse();

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

  /** Follow the stream: each event that says what claude is doing now updates the line. True when the context's figure changed. */
  observe(event: StreamEvent): boolean {
    // Requests are remembered even between turns' lines: an answer must find its question.
    const answered = this.answered.activity(event);
    const contextChanged = this.context.observe(event);
    if (!this.running) return contextChanged;
    if (contextChanged) this.draw();
    const found = answered ?? activityOf(event, this.o.cwd);
    // Tool names, a status, a subagent's description: claude's words, shown, never obeyed.
    const next = found === null ? null : visible(found);
    if (next !== null && next !== this.activity) {
      this.activity = next;
      this.draw();
    }
    return contextChanged;
  }

  /** Show this permission mode on the line ("" for none). */
  setMode(label: string): void {
    this.mode = label;
    if (this.running) this.draw();
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
    const context = this.context.text();
    const line = `${FRAMES[this.frame % FRAMES.length]} ${this.activity} · ${elapsed}${context ? ` · ${context}` : ""}${this.mode ? ` · ${this.mode}` : ""}`;
    // At a question Ctrl-C is "no", not an interrupt: the question's own line says what to type.
    const hint = this.activity === WAITING ? "" : " · Ctrl-C to interrupt";
    const width = this.o.screen.columns - 1;
    // Near the context's end the whole line turns yellow: claude is about to compact on its own.
    const colour = this.context.warn ? style.yellow : style.cyan;
    return line.length + hint.length <= width ? `${colour(line)}${style.dim(hint)}` : colour(fitWidth(line, width));
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
