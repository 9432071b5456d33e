/**
 * The terminal's keys, for whoever has the focus: the prompt line, the line typed ahead while
 * claude works, a question being answered. One owner of stdin in raw mode, so that Ctrl-C is a
 * key (a turn's interrupt, a cleared line, a "no") rather than a signal, and a bracketed paste
 * arrives as one `{ name: "paste", text }` however many lines it has.
 *
 * It is also where the terminal going away is noticed: SIGHUP, a read error (EIO once the
 * terminal has closed), `setRawMode` failing (which Node reports as an 'error' event, fatal when
 * nobody listens). Each ends in `hungUp` and the `onHangUp` callbacks, never in an exception.
 */
import readline from "node:readline";
import type { Key } from "./line-editor.js";
import type { TerminalOutput } from "./screen.js";

/** The part of a tty ReadStream the keyboard uses (process.stdin on a terminal). */
export type TerminalInput = NodeJS.ReadableStream & {
  isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
};

export type KeyHandler = (key: Key) => void;

export interface KeyboardOptions {
  input: TerminalInput;
  /** Where the terminal modes are switched (bracketed paste); the screen's stream. */
  output: TerminalOutput;
  /** Treat SIGHUP as the terminal closing (default true). Off, a hang-up is still seen as a read error. */
  watchSighup?: boolean;
  /** Ask the terminal for bracketed paste (default true; not for TERM=dumb, which would print the request). */
  bracketedPaste?: boolean;
}

const PASTE_ON = "\u001b[?2004h";
const PASTE_OFF = "\u001b[?2004l";

export class Keyboard {
  private readonly handlers: KeyHandler[] = [];
  private readonly hangUpListeners: Array<() => void> = [];
  private users = 0;
  private paste: string | null = null;
  private hung = false;
  private suspended = false;
  private readonly onKeypress = (ch: string | undefined, key: Key | undefined) => this.keypress(ch, key);
  private readonly onSighup = () => this.hangUp("SIGHUP");
  private readonly onExit = () => this.restore();
  private readonly onCont = () => this.resumeFromSuspend();

  constructor(private readonly o: KeyboardOptions) {
    // Listened to for the process's whole life: a tty that errors after we let go must not crash nudge either.
    o.input.on("error", () => this.hangUp("read error"));
    // A terminal that closes ends stdin (measured on Linux: 'end', then SIGHUP; EIO on other systems).
    o.input.on("end", () => this.hangUp("end of input"));
    this.watch(o.output);
    readline.emitKeypressEvents(o.input);
  }

  /**
   * Also take a write error on this stream as the terminal going away: after a hang-up a write to
   * the terminal fails later, as an 'error' event (EIO), which would end nudge if nobody listened.
   */
  watch(stream: TerminalOutput): void {
    stream.on?.("error", () => this.hangUp("write error"));
  }

  /** The terminal closed (or stdin ended): no key will come again. */
  get hungUp(): boolean {
    return this.hung;
  }

  /** Called once, when the terminal goes away; returns a function that cancels it. */
  onHangUp(listener: () => void): () => void {
    if (this.hung) {
      queueMicrotask(listener);
      return () => undefined;
    }
    this.hangUpListeners.push(listener);
    return () => {
      const i = this.hangUpListeners.indexOf(listener);
      if (i !== -1) this.hangUpListeners.splice(i, 1);
    };
  }

  /**
   * Raw mode and bracketed paste on, for as long as someone uses the keyboard: each `acquire`
   * returns its own release, and the terminal goes back to how it was after the last one.
   */
  acquire(): () => void {
    if (this.users++ === 0) this.start();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.users === 0) this.stop();
    };
  }

  /** Keys go to the last handler given focus until it lets go (a question over the prompt line). */
  focus(handler: KeyHandler): () => void {
    this.handlers.push(handler);
    return () => {
      const i = this.handlers.lastIndexOf(handler);
      if (i !== -1) this.handlers.splice(i, 1);
    };
  }

  /**
   * Lend the terminal to a program nudge runs in the foreground (a pager): cooked mode, no
   * bracketed paste, stdin paused so that nudge reads none of the keys meant for it (measured:
   * a paused tty stream stops reading at once). Ctrl-C there is the program's (less stops a
   * search with it); nudge, in the same process group, ignores the SIGINT it also gets. The
   * returned function takes the terminal back as it was.
   */
  lend(): () => void {
    if (this.hung || this.users === 0) return () => undefined;
    const ignore = () => undefined;
    process.on("SIGINT", ignore);
    this.o.input.off("keypress", this.onKeypress);
    this.restore();
    this.o.input.pause();
    let back = false;
    return () => {
      if (back) return;
      back = true;
      process.off("SIGINT", ignore);
      if (this.hung || this.users === 0) return;
      this.o.input.on("keypress", this.onKeypress);
      this.setRaw(true);
      this.send(PASTE_ON);
      this.o.input.resume();
    };
  }

  private start(): void {
    if (this.hung) return;
    this.o.input.on("keypress", this.onKeypress);
    if (this.o.watchSighup !== false) process.on("SIGHUP", this.onSighup);
    process.on("exit", this.onExit);
    process.on("SIGCONT", this.onCont);
    this.setRaw(true);
    this.send(PASTE_ON);
    this.o.input.resume();
  }

  private stop(): void {
    this.o.input.off("keypress", this.onKeypress);
    process.off("SIGHUP", this.onSighup);
    process.off("exit", this.onExit);
    process.off("SIGCONT", this.onCont);
    this.restore();
    // Paused, stdin no longer keeps the process alive, and keys typed now wait in the terminal.
    this.o.input.pause();
  }

  /** The terminal as it was: cooked mode, no bracketed paste. Safe to call twice, and after a hang-up. */
  private restore(): void {
    if (this.hung) return;
    this.send(PASTE_OFF);
    this.setRaw(false);
  }

  private keypress(ch: string | undefined, key: Key | undefined): void {
    const k: Key = key ? { ...key } : { sequence: ch };
    if (k.name === "paste-start") {
      this.paste = "";
      return;
    }
    if (this.paste !== null) {
      if (k.name === "paste-end") {
        // As pasted: the line editor, the one reader of a paste, makes its line ends plain newlines.
        const text = this.paste;
        this.paste = null;
        this.deliver({ name: "paste", text, sequence: text });
      } else {
        this.paste += k.sequence ?? ch ?? "";
      }
      return;
    }
    if (k.ctrl && k.name === "z") return this.suspend();
    this.deliver(k);
  }

  private deliver(key: Key): void {
    const handler = this.handlers.at(-1);
    if (!handler) return;
    try {
      handler(key);
    } catch (error) {
      // readline's key decoder breaks for good when a listener throws: report it on the next tick instead.
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  /** Ctrl-Z: in raw mode the terminal does not stop us, so do what it would, the terminal put back first. */
  private suspend(): void {
    this.suspended = true;
    this.restore();
    process.kill(process.pid, "SIGTSTP");
  }

  private resumeFromSuspend(): void {
    if (!this.suspended || this.hung || this.users === 0) return;
    this.suspended = false;
    this.setRaw(true);
    this.send(PASTE_ON);
    // Let the current owner redraw what the shell may have scrolled away.
    this.deliver({ name: "redraw" });
  }

  private setRaw(raw: boolean): void {
    if (this.hung || typeof this.o.input.setRawMode !== "function") return;
    try {
      // A closed terminal: Node emits 'error' (EIO), which our listener turns into a hang-up.
      this.o.input.setRawMode(raw);
    } catch {
      this.hangUp("setRawMode failed");
    }
  }

  /** Terminal mode switches (bracketed paste), only where the terminal understands them. */
  private send(text: string): void {
    if (this.hung || this.o.bracketedPaste === false) return;
    try {
      this.o.output.write(text);
    } catch {
      this.hangUp("write error");
    }
  }

  private hangUp(_why: string): void {
    if (this.hung) return;
    this.hung = true;
    this.o.input.off("keypress", this.onKeypress);
    process.off("SIGHUP", this.onSighup);
    process.off("exit", this.onExit);
    process.off("SIGCONT", this.onCont);
    try {
      this.o.input.pause();
    } catch {
      // already destroyed
    }
    for (const listener of this.hangUpListeners.splice(0)) listener();
  }
}
