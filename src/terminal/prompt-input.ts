/**
 * Where prompts come from. On a terminal: the prompt line (tty-prompts.ts, usually through
 * openTerminalUi). Otherwise: each stdin line is one prompt, read ahead but sent only after the
 * previous turn's result; EOF means no more prompts.
 */
import readline from "node:readline";
import type { Readable, Writable } from "node:stream";
import { Keyboard, type TerminalInput } from "./keyboard.js";
import { Screen } from "./screen.js";
import { makeStyle } from "./style.js";
import { TerminalPrompts } from "./tty-prompts.js";

export interface PromptSource {
  /** The next prompt, or null when the user is done (EOF, /exit is the caller's, Ctrl-C twice or Ctrl-D at the prompt, a hang-up). */
  next(): Promise<string | null>;
  close(): void;
  /** A prompt is waiting already (typed ahead on a terminal, read ahead from a pipe): the next `next()` returns at once. */
  hasQueued?(): boolean;
  /** The source ended because the terminal went away (SIGHUP, EIO): the caller exits as a hang-up (129). */
  readonly hungUp?: boolean;
}

/** Blank lines are passed on as they are: the run loop skips them. */
export function linePrompts(input: Readable): PromptSource {
  const rl = readline.createInterface({ input, crlfDelay: Infinity, terminal: false });
  const queue: string[] = [];
  let waiting: ((line: string | null) => void) | null = null;
  let closed = false;
  const deliver = (line: string | null) => {
    const resolve = waiting;
    waiting = null;
    resolve?.(line);
  };
  rl.on("line", (line) => (waiting ? deliver(line) : queue.push(line)));
  rl.on("close", () => {
    closed = true;
    if (waiting) deliver(null);
  });
  return {
    next() {
      if (queue.length > 0) return Promise.resolve(queue.shift()!);
      if (closed) return Promise.resolve(null);
      return new Promise((resolve) => (waiting = resolve));
    },
    hasQueued: () => queue.length > 0,
    // Closing means "no more prompts" (SIGTERM): lines read ahead are dropped. An EOF on its own
    // (the "close" event) still lets the queued lines through.
    close: () => {
      queue.length = 0;
      rl.close();
    },
  };
}

/**
 * The terminal prompt line for callers that write claude's output straight to stdout (not through
 * a Screen): Ctrl-C during a turn raises SIGINT, which such a caller already turns into an
 * interrupt, and the line typed ahead is not drawn (it would be torn by output the screen does
 * not see). New code uses openTerminalUi (terminal-ui.ts) instead.
 */
export function terminalPrompts(input: Readable & { setRawMode?: (raw: boolean) => void }, output: Writable, promptText: string): PromptSource {
  const out = output as Writable & { isTTY?: boolean; columns?: number };
  const ansi = out.isTTY === true && process.env.TERM !== "dumb";
  const screen = new Screen(out, ansi);
  const keyboard = new Keyboard({ input: input as unknown as TerminalInput, output: out, watchSighup: false, bracketedPaste: ansi });
  return new TerminalPrompts({
    keyboard,
    screen,
    style: makeStyle(false),
    prompt: promptText,
    showTypeAhead: false,
    onInterrupt: () => process.kill(process.pid, "SIGINT"),
  });
}
