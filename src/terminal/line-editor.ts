/**
 * The text being typed at a prompt and what each key does to it: a small editor of nudge's own
 * rather than readline's, because a prompt here may hold several lines (a bracketed paste, Alt-Enter,
 * a trailing `\`), and readline's line is one line with no notion of a paste. Pure state: no
 * terminal, so every key's effect is unit-testable; the prompt line draws `layout()`.
 */
import { visible } from "../base/inert-text.js";
import { expandTabs, textWidth } from "../base/text-width.js";

/** A decoded key, as `readline.emitKeypressEvents` gives it, or a whole bracketed paste. */
export interface Key {
  name?: string;
  sequence?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
  /** For `name: "paste"`: the pasted text, newlines as "\n". */
  text?: string;
}

/** A paste of more lines than this stands on the prompt line as `[pasted N lines]` (sent whole). */
const PASTE_COLLAPSE_LINES = 20;

/** What a key did: "submit" = Enter on a finished prompt; "changed" = redraw; "ignored" = not an editing key. */
export type EditResult = "submit" | "changed" | "ignored";

export interface Layout {
  /** One entry per line of the text, each with its prefix (prompt or continuation). */
  lines: string[];
  /** Where the cursor is: index into `lines`, and column (display width before it). */
  cursor: { row: number; col: number };
}

export class LineEditor {
  text = "";
  /** Index into `text` (UTF-16 units, always on a code point boundary). */
  cursor = 0;
  private readonly history: string[] = [];
  /** Position while walking the history; history.length = the draft being typed. */
  private historyAt = 0;
  private draft = "";
  /** Big pastes on the line as their placeholders (`[pasted 500 lines]`) → the text each stands for. */
  private readonly pastes = new Map<string, string>();
  /** Ctrl-R: the words searched for, and the history entry matching them (-1: none yet). */
  private search: { query: string; at: number; failed: boolean; draft: string } | null = null;

  constructor(private readonly historySize = 1000) {}

  /** Prompts of earlier runs (oldest first), before this session's own. */
  loadHistory(prompts: readonly string[]): void {
    this.history.unshift(...prompts.filter((p) => p.trim()));
    if (this.history.length > this.historySize) this.history.splice(0, this.history.length - this.historySize);
    this.historyAt = this.history.length;
  }

  /** A Ctrl-R search is under way. */
  get searching(): boolean {
    return this.search !== null;
  }

  /** Leave a Ctrl-R search, the text back as it was before it (Esc, Ctrl-G, Ctrl-C). */
  cancelSearch(): EditResult {
    if (!this.search) return "ignored";
    this.text = this.search.draft;
    this.cursor = this.text.length;
    this.search = null;
    return "changed";
  }

  /** Start over with `text` (the cursor at its end), leaving the history where it is. */
  reset(text = ""): void {
    this.search = null;
    this.pastes.clear();
    this.text = text;
    this.cursor = text.length;
    this.historyAt = this.history.length;
    this.draft = "";
  }

  /** The prompt to send: the text with each big paste's placeholder replaced by what was pasted. */
  get sendText(): string {
    return this.expanded(this.text);
  }

  private expanded(text: string): string {
    let out = text;
    for (const [placeholder, pasted] of this.pastes) out = out.split(placeholder).join(pasted);
    return out;
  }

  /** A paste: as it is, or, past PASTE_COLLAPSE_LINES lines, as one placeholder (Ctrl-O shows it whole). */
  private paste(text: string): EditResult {
    const lines = text.replace(/\n$/, "").split("\n").length;
    if (lines <= PASTE_COLLAPSE_LINES) return this.insert(text);
    let placeholder = `[pasted ${lines} lines]`;
    for (let n = 2; this.pastes.has(placeholder) && this.pastes.get(placeholder) !== text; n++)
      placeholder = `[pasted ${lines} lines #${n}]`;
    this.pastes.set(placeholder, text);
    return this.insert(placeholder);
  }

  /** Ctrl-O: every big paste on the line shown whole, to read or edit it. */
  private expandPastes(): EditResult {
    if (this.pastes.size === 0) return "ignored";
    this.cursor = this.expanded(this.text.slice(0, this.cursor)).length;
    this.text = this.expanded(this.text);
    this.pastes.clear();
    return "changed";
  }

  /** Backspace right after a paste's placeholder takes the whole paste away. */
  private deletePlaceholder(): EditResult | null {
    const before = this.text.slice(0, this.cursor);
    for (const placeholder of this.pastes.keys()) {
      if (before.endsWith(placeholder)) return this.deleteBack(this.cursor - placeholder.length);
    }
    return null;
  }

  /** Remember a sent prompt for ↑ (a repeat of the one before is kept once, as shells do). */
  remember(prompt: string): void {
    if (prompt.trim() && this.history.at(-1) !== prompt) this.history.push(prompt);
    if (this.history.length > this.historySize) this.history.shift();
    this.historyAt = this.history.length;
  }

  key(key: Key): EditResult {
    if (this.search) {
      const result = this.searchKey(key);
      if (result !== "accept") return result;
    }
    const name = key.name;
    // A paste's control characters (an escape sequence that would hide the rest of the line)
    // become text showing them: what is on the prompt line is what claude gets.
    if (name === "paste") return this.paste(visible(normalizeNewlines(key.text ?? "")));
    if (name === "return" || name === "enter") {
      // Alt-Enter (ESC CR) is a newline; so is Enter after a trailing backslash, which goes away.
      if (key.meta) return this.insert("\n");
      if (this.text[this.cursor - 1] === "\\") {
        this.text = this.text.slice(0, this.cursor - 1) + "\n" + this.text.slice(this.cursor);
        return "changed";
      }
      return "submit";
    }
    if (key.ctrl && !key.meta) return this.control(name);
    if (key.meta) return this.alt(name);
    switch (name) {
      case "backspace":
        return this.deletePlaceholder() ?? this.deleteBack(this.prevBoundary(this.cursor));
      case "delete":
        return this.deleteForward(this.nextBoundary(this.cursor));
      case "left":
        return this.moveTo(this.prevBoundary(this.cursor));
      case "right":
        return this.moveTo(this.nextBoundary(this.cursor));
      case "home":
        return this.moveTo(this.lineStart());
      case "end":
        return this.moveTo(this.lineEnd());
      case "up":
        return this.up();
      case "down":
        return this.down();
      case "tab":
        // Shift-Tab (CSI Z) cycles Claude Code's modes; here it has no meaning, and is no tab.
        return key.shift ? "ignored" : this.insert("\t");
    }
    const s = key.sequence ?? "";
    // Printable text only: an unknown escape sequence must not land in the prompt.
    if (s && !/[\u0000-\u001f\u007f]/.test(s)) return this.insert(s);
    return "ignored";
  }

  private control(name: string | undefined): EditResult {
    switch (name) {
      case "a":
        return this.moveTo(this.lineStart());
      case "e":
        return this.moveTo(this.lineEnd());
      case "b":
        return this.moveTo(this.prevBoundary(this.cursor));
      case "f":
        return this.moveTo(this.nextBoundary(this.cursor));
      case "h":
        return this.deleteBack(this.prevBoundary(this.cursor));
      case "d":
        return this.deleteForward(this.nextBoundary(this.cursor));
      case "u":
        return this.deleteBack(this.lineStart());
      case "k":
        return this.deleteForward(this.lineEnd());
      case "w":
      case "backspace":
        return this.deleteBack(this.wordStart());
      case "left":
        return this.moveTo(this.wordStart());
      case "right":
        return this.moveTo(this.wordEnd());
      case "p":
        return this.up();
      case "n":
        return this.down();
      case "r":
        return this.startSearch();
      case "o":
        return this.expandPastes();
    }
    return "ignored";
  }

  /** Ctrl-R: search the history backwards for what is typed next, as a shell does. */
  private startSearch(): EditResult {
    this.search = { query: "", at: -1, failed: false, draft: this.text };
    return "changed";
  }

  /**
   * A key during a Ctrl-R search: text and Backspace change the words searched for, Ctrl-R finds
   * an older match, Esc or Ctrl-G give up; any other key takes the match onto the line and then
   * does what it does there ("accept"), Enter included, which sends it.
   */
  private searchKey(key: Key): EditResult | "accept" {
    const search = this.search!;
    const ctrl = key.ctrl && !key.meta;
    if (ctrl && key.name === "r")
      return this.find(search.query, (search.at === -1 ? this.history.length : search.at) - 1);
    if ((ctrl && key.name === "g") || key.name === "escape") return this.cancelSearch();
    if (key.name === "backspace" && !ctrl && !key.meta)
      return this.find(search.query.slice(0, -1), this.history.length - 1);
    const s = key.name === "paste" ? (key.text ?? "") : (key.sequence ?? "");
    const printable =
      !ctrl &&
      !key.meta &&
      s !== "" &&
      !/[\u0000-\u001f\u007f]/.test(s) &&
      !["return", "enter", "tab"].includes(key.name ?? "");
    if (printable) return this.find(search.query + s, search.at === -1 ? this.history.length - 1 : search.at);
    this.search = null;
    if (search.at !== -1) {
      this.historyAt = search.at;
      this.cursor = Math.min(this.cursor, this.text.length);
    }
    return "accept";
  }

  /** The newest history entry at or before `from` holding `query`; the line shows it (or keeps the last match, marked failing). */
  private find(query: string, from: number): EditResult {
    const search = this.search!;
    search.query = query;
    if (!query) {
      search.failed = false;
      return "changed";
    }
    for (let i = Math.min(from, this.history.length - 1); i >= 0; i--) {
      const at = this.history[i]!.indexOf(query);
      if (at === -1) continue;
      search.at = i;
      search.failed = false;
      this.text = this.history[i]!;
      this.cursor = at;
      return "changed";
    }
    search.failed = true;
    return "changed";
  }

  private alt(name: string | undefined): EditResult {
    switch (name) {
      case "b":
      case "left":
        return this.moveTo(this.wordStart());
      case "f":
      case "right":
        return this.moveTo(this.wordEnd());
      case "backspace":
        return this.deleteBack(this.wordStart());
      case "d":
        return this.deleteForward(this.wordEnd());
    }
    return "ignored";
  }

  /** The text as rows on screen: the prompt before the first line, `continuation` before the others. */
  layout(prompt: string, continuation: string): Layout {
    if (this.search) {
      // bash's own words for it, which users of a shell know: the match shown after the query.
      const head = `(${this.search.failed ? "failing " : ""}reverse-i-search)'${this.search.query}': `;
      const shown = this.search.at === -1 ? [""] : this.text.split("\n");
      return {
        lines: shown.map((line, i) => (i === 0 ? head : continuation) + expandTabs(line)),
        cursor: { row: 0, col: textWidth(head) - 3 },
      };
    }
    const lines = this.text.split("\n");
    const before = this.text.slice(0, this.cursor).split("\n");
    const row = before.length - 1;
    const prefixWidth = textWidth(row === 0 ? prompt : continuation);
    return {
      lines: lines.map((line, i) => (i === 0 ? prompt : continuation) + expandTabs(line)),
      cursor: { row, col: prefixWidth + textWidth(before[row]!) },
    };
  }

  private insert(s: string): EditResult {
    if (!s) return "ignored";
    this.text = this.text.slice(0, this.cursor) + s + this.text.slice(this.cursor);
    this.cursor += s.length;
    return "changed";
  }

  private moveTo(at: number): EditResult {
    if (at === this.cursor) return "ignored";
    this.cursor = at;
    return "changed";
  }

  private deleteBack(from: number): EditResult {
    if (from >= this.cursor) return "ignored";
    this.text = this.text.slice(0, from) + this.text.slice(this.cursor);
    this.cursor = from;
    return "changed";
  }

  private deleteForward(to: number): EditResult {
    if (to <= this.cursor) return "ignored";
    this.text = this.text.slice(0, this.cursor) + this.text.slice(to);
    return "changed";
  }

  /** ↑: the line above in a multi-line prompt, else the previous prompt of this session. */
  private up(): EditResult {
    const start = this.lineStart();
    if (start > 0) return this.moveToColumn(this.text.lastIndexOf("\n", start - 2) + 1, start - 1);
    if (this.historyAt === 0) return "ignored";
    if (this.historyAt === this.history.length) this.draft = this.text;
    this.historyAt--;
    return this.show(this.history[this.historyAt]!);
  }

  private down(): EditResult {
    const end = this.lineEnd();
    if (end < this.text.length) {
      const next = end + 1;
      const nextEnd = this.text.indexOf("\n", next);
      return this.moveToColumn(next, nextEnd === -1 ? this.text.length : nextEnd);
    }
    if (this.historyAt >= this.history.length) return "ignored";
    this.historyAt++;
    return this.show(this.historyAt === this.history.length ? this.draft : this.history[this.historyAt]!);
  }

  private show(text: string): EditResult {
    this.text = text;
    this.cursor = text.length;
    return "changed";
  }

  /** Keep the column when moving to the line [start, end). */
  private moveToColumn(start: number, end: number): EditResult {
    const column = this.cursor - this.lineStart();
    this.cursor = Math.min(start + column, end);
    return "changed";
  }

  private lineStart(): number {
    return this.text.lastIndexOf("\n", this.cursor - 1) + 1;
  }

  private lineEnd(): number {
    const end = this.text.indexOf("\n", this.cursor);
    return end === -1 ? this.text.length : end;
  }

  private wordStart(): number {
    let i = this.cursor;
    while (i > 0 && /\s/.test(this.text[i - 1]!)) i--;
    while (i > 0 && !/\s/.test(this.text[i - 1]!)) i--;
    return i;
  }

  private wordEnd(): number {
    let i = this.cursor;
    while (i < this.text.length && /\s/.test(this.text[i]!)) i++;
    while (i < this.text.length && !/\s/.test(this.text[i]!)) i++;
    return i;
  }

  private prevBoundary(i: number): number {
    if (i <= 0) return 0;
    const low = this.text.charCodeAt(i - 1);
    return low >= 0xdc00 && low <= 0xdfff && i >= 2 ? i - 2 : i - 1;
  }

  private nextBoundary(i: number): number {
    if (i >= this.text.length) return this.text.length;
    const high = this.text.charCodeAt(i);
    return high >= 0xd800 && high <= 0xdbff ? i + 2 : i + 1;
  }
}

/** A paste's line ends as "\n", whatever the terminal or the copied text used. */
function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}
