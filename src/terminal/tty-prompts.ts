/**
 * The prompt line on a terminal, as a `PromptSource`. The terminal stays in raw mode for the whole
 * session, so keys mean the same thing at the prompt and while claude works:
 *
 * - At the prompt (a `next()` is waiting): the line editor. Enter sends; a bracketed paste, Alt-Enter
 *   or a trailing `\` make a prompt of several lines. Ctrl-C clears a line with text; on an empty
 *   line it shows a hint, and a second Ctrl-C within CTRL_C_WINDOW_MS ends the session (null),
 *   as does Ctrl-D on an empty line.
 * - While claude works (between `next()` calls): keys go to a line typed ahead, drawn at the
 *   bottom of the screen (under the status line); Enter queues it, and queued lines are the next
 *   prompts, in order (`hasQueued()`). Ctrl-C or Esc call `onInterrupt`: the turn's interrupt.
 *
 * The terminal going away ends it too: `next()` resolves null and `hungUp` is true.
 */
import type { PromptSource } from "../live/frontend.js";
import type { Keyboard } from "./keyboard.js";
import { LineEditor, type Key } from "./line-editor.js";
import type { Screen } from "./screen.js";
import type { Style } from "./style.js";
import { fitWidth, textWidth } from "../base/text-width.js";

const CTRL_C_WINDOW_MS = 2000;

/** Lines queued this shortly before a question appears were likely meant as its answer. */
const BEFORE_QUESTION_MS = 2000;

export interface TerminalPromptsOptions {
  keyboard: Keyboard;
  screen: Screen;
  style: Style;
  /** Ctrl-C (or Esc) while claude works: interrupt the turn. Not called at the prompt. */
  onInterrupt: () => void;
  /** The prompt, "› " by default (styled by the caller if wanted). */
  prompt?: string;
  /** Called as the prompt line appears (the turn is over): the status line goes. */
  onPrompt?: () => void;
  /** Shift-Tab, at the prompt or while claude works: the next permission mode. */
  onCycleMode?: () => void;
  /** Prompts of earlier runs in this repository, and where to keep this run's (↑, Ctrl-R). */
  history?: { prompts: readonly string[]; add(prompt: string): unknown };
  now?: () => number;
}

export class TerminalPrompts implements PromptSource {
  private readonly editor = new LineEditor();
  private readonly queue: string[] = [];
  /** Each queued prompt as it was on the line (a big paste as its placeholder), beside `queue`. */
  private readonly queuedShown: string[] = [];
  /** When each queued line was queued (ms), beside `queue`. */
  private readonly queuedAt: number[] = [];
  private waiting: ((prompt: string | null) => void) | null = null;
  private closed = false;
  private lastCtrlC = -Infinity;
  private hint: string | null = null;
  /** The permission mode, under the prompt line ("" in the default mode). */
  private mode = "";
  /** The mode as last written into the conversation, under a sent prompt: it is said again only when it changed. */
  private modeSaid = "";
  /** How full claude's context is ("context 45k/1M (5%)"), under the prompt line once claude has said. */
  private context = "";
  private hintTimer: NodeJS.Timeout | undefined;
  private readonly release: () => void;
  private readonly unfocus: () => void;
  private readonly prompt: string;
  private readonly continuation: string;

  constructor(private readonly o: TerminalPromptsOptions) {
    this.prompt = o.prompt ?? "› ";
    // Lines after the first sit under the first line's text, so a pasted block keeps its shape.
    this.continuation = " ".repeat(textWidth(this.prompt));
    if (o.history) this.editor.loadHistory(o.history.prompts);
    this.release = o.keyboard.acquire();
    this.unfocus = o.keyboard.focus((key) => this.key(key));
    o.keyboard.onHangUp(() => {
      o.screen.hangUp();
      this.finish(null);
    });
  }

  get hungUp(): boolean {
    return this.o.keyboard.hungUp;
  }

  hasQueued(): boolean {
    return this.queue.length > 0;
  }

  next(): Promise<string | null> {
    if (this.closed || this.hungUp) return Promise.resolve(null);
    const queued = this.queue.shift();
    const shown = this.queuedShown.shift();
    this.queuedAt.shift();
    if (queued !== undefined) {
      // Sent now: show it where it belongs in the conversation, as if typed at this prompt.
      this.o.screen.writeLines(`${this.echo(shown ?? queued)}\n${this.modeChange()}`);
      this.remember(queued);
      this.drawTypeAhead();
      return Promise.resolve(queued);
    }
    return new Promise((resolve) => {
      this.o.onPrompt?.();
      this.waiting = resolve;
      this.lastCtrlC = -Infinity;
      this.o.screen.set("input", null);
      this.drawPrompt();
    });
  }

  /** No more prompts: the queue is dropped, the terminal put back as it was. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.queuedShown.length = 0;
    this.queuedAt.length = 0;
    clearTimeout(this.hintTimer);
    this.o.screen.set("input", null);
    this.unfocus();
    this.release();
    this.finish(null);
  }

  /** Show this permission mode under the prompt line ("" for none). */
  setMode(label: string): void {
    this.mode = label;
    if (this.waiting) this.drawPrompt();
  }

  /** A prompt given on the command line: written into the conversation as a typed one is. */
  echoGiven(text: string): void {
    this.o.screen.writeLines(`${this.echo(text)}\n${this.modeChange()}`);
  }

  /** Show how full claude's context is under the prompt line ("" for nothing yet). */
  setContext(text: string): void {
    if (text === this.context) return;
    this.context = text;
    if (this.waiting) this.drawPrompt();
  }

  /** Under a sent prompt: the mode it goes in, when that changed since the last prompt (a line, or ""). */
  private modeChange(): string {
    if (this.mode === this.modeSaid) return "";
    this.modeSaid = this.mode;
    return `${this.o.style.dim(`  ${this.mode || "default mode on (edits and commands ask)"}`)}\n`;
  }

  private key(key: Key): void {
    if (this.closed) return;
    if (key.name === "redraw") return this.waiting ? this.drawPrompt() : this.drawTypeAhead();
    if (key.name === "tab" && key.shift && this.o.onCycleMode && !this.editor.searching) return this.o.onCycleMode();
    if (this.waiting) this.atPrompt(key);
    else this.whileBusy(key);
  }

  private atPrompt(key: Key): void {
    const ctrl = key.ctrl && !key.meta;
    if (ctrl && key.name === "c") return this.ctrlC();
    this.setHint(null);
    if (ctrl && key.name === "d" && this.editor.text === "") return this.endSession();
    const result = this.editor.key(key);
    if (result === "submit") {
      const text = this.editor.sendText;
      // What stays in the conversation is the prompt alone: the mode and context lines belong to the live prompt.
      this.drawPrompt(false);
      this.o.screen.commit("input");
      this.editor.reset();
      // Enter on an empty line: a fresh prompt line, as a shell gives, and nothing sent.
      if (text.trim() === "") return this.drawPrompt();
      const change = this.modeChange();
      if (change) this.o.screen.writeLines(change);
      this.remember(text);
      this.finish(text);
    } else if (result === "changed") {
      this.drawPrompt();
    }
  }

  /** A sent prompt, for ↑ in this run and, through the history file, in the next ones. */
  private remember(text: string): void {
    this.editor.remember(text);
    void this.o.history?.add(text);
  }

  private ctrlC(): void {
    if (this.editor.searching) {
      this.editor.cancelSearch();
      return this.drawPrompt();
    }
    if (this.editor.text !== "") {
      this.editor.reset();
      this.setHint(null);
      return this.drawPrompt();
    }
    const now = this.now();
    if (now - this.lastCtrlC <= CTRL_C_WINDOW_MS) return this.endSession();
    this.lastCtrlC = now;
    this.setHint("press Ctrl-C again to exit, or type /exit");
  }

  private endSession(): void {
    this.setHint(null);
    this.drawPrompt(false);
    this.o.screen.commit("input");
    this.finish(null);
  }

  /** The hint under the prompt; it goes with the next key or when the Ctrl-C window closes. */
  private setHint(hint: string | null): void {
    if (hint === this.hint) return;
    this.hint = hint;
    clearTimeout(this.hintTimer);
    if (hint) {
      this.hintTimer = setTimeout(() => this.setHint(null), CTRL_C_WINDOW_MS);
      this.hintTimer.unref();
    }
    if (this.waiting) this.drawPrompt();
  }

  private whileBusy(key: Key): void {
    if ((key.ctrl && key.name === "c") || key.name === "escape") {
      this.o.onInterrupt();
      return;
    }
    if (key.ctrl && key.name === "d") return; // Ctrl-D ends the session at the prompt, not mid-turn
    const result = this.editor.key(key);
    if (result === "submit") {
      const text = this.editor.sendText;
      const shown = this.editor.text;
      this.editor.reset();
      if (text.trim() !== "") {
        this.queue.push(text);
        this.queuedShown.push(shown);
        this.queuedAt.push(this.now());
      }
    }
    if (result !== "ignored") this.drawTypeAhead();
  }

  /**
   * A question is about to be asked: lines queued in the last `windowMs` (a `y` typed as the
   * question appeared) are taken back from the queue and put on the line being typed, unsent, so
   * they never become a paid turn unseen. Returns them, for the notice that says so.
   */
  holdBackRecent(windowMs = BEFORE_QUESTION_MS): string[] {
    const now = this.now();
    let from = this.queue.length;
    while (from > 0 && now - this.queuedAt[from - 1]! <= windowMs) from--;
    const held = this.queue.splice(from);
    this.queuedShown.splice(from);
    this.queuedAt.splice(from);
    if (held.length === 0) return held;
    this.editor.reset([...held, this.editor.text].filter((t) => t !== "").join("\n"));
    if (!this.waiting) this.drawTypeAhead();
    return held;
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** The prompt line, and under it (`below`) the hint, the mode and the context. */
  private drawPrompt(below = true): void {
    const layout = this.editor.layout(this.prompt, this.continuation);
    const status = [this.mode && `${this.mode} (shift-tab to cycle)`, this.context].filter(Boolean).join(" · ");
    const lines = [
      ...layout.lines,
      ...(below ? [this.hint, status] : []).filter((l): l is string => !!l).map((l) => this.o.style.dim(l)),
    ];
    this.o.screen.set("input", { lines, cursor: layout.cursor });
  }

  /** While claude works: the queued prompts (dim), then the line being typed, if any. */
  private drawTypeAhead(): void {
    const { style, screen } = this.o;
    const queued = this.queuedShown.map((q) =>
      style.dim(fitWidth(`  queued: ${q.replace(/\n/g, " ⏎ ")}`, screen.columns - 1)),
    );
    if (this.editor.text === "") {
      screen.set("input", queued.length > 0 ? { lines: queued } : null);
      return;
    }
    const layout = this.editor.layout(this.prompt, this.continuation);
    screen.set("input", {
      lines: [...queued, ...layout.lines],
      cursor: { row: queued.length + layout.cursor.row, col: layout.cursor.col },
    });
  }

  private echo(text: string): string {
    return text
      .split("\n")
      .map((line, i) => (i === 0 ? this.prompt : this.continuation) + line)
      .join("\n");
  }

  private finish(prompt: string | null): void {
    const resolve = this.waiting;
    this.waiting = null;
    if (!resolve) return;
    if (prompt === null) this.o.screen.set("input", null);
    else this.drawTypeAhead();
    resolve(prompt);
  }
}
