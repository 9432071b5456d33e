/**
 * Where prompts come from. On a terminal: a prompt line per turn (Ctrl-C or Ctrl-D there ends the
 * session). Otherwise: each stdin line is one prompt, read ahead but sent only after the previous
 * turn's result; EOF means no more prompts.
 */
import readline from "node:readline";
import type { Readable, Writable } from "node:stream";

export interface PromptSource {
  /** The next prompt, or null when the user is done (EOF, Ctrl-C at the prompt). */
  next(): Promise<string | null>;
  close(): void;
}

/** A line source shared by both modes: lines that arrive before they are asked for wait in a queue. */
function queuedLines(rl: readline.Interface, onAsk: () => void, onAnswer: () => void): PromptSource {
  const queue: string[] = [];
  let waiting: ((line: string | null) => void) | null = null;
  let closed = false;
  const deliver = (line: string | null) => {
    const resolve = waiting;
    waiting = null;
    onAnswer();
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
      return new Promise((resolve) => {
        waiting = resolve;
        onAsk();
      });
    },
    // Closing means "no more prompts" (Ctrl-C, SIGTERM): lines read ahead are dropped. An EOF
    // on its own (the "close" event) still lets the queued lines through.
    close: () => {
      queue.length = 0;
      rl.close();
    },
  };
}

export function terminalPrompts(input: Readable & { setRawMode?: (raw: boolean) => void }, output: Writable, promptText: string): PromptSource {
  const rl = readline.createInterface({ input, output, terminal: true, historySize: 100, prompt: promptText });
  // Between prompts (while claude works) the terminal is back in cooked mode and input is paused:
  // keys typed ahead wait in the terminal, and Ctrl-C is a real SIGINT that nudge turns into an
  // interrupt of the turn rather than the end of the session.
  const idle = () => {
    rl.pause();
    input.setRawMode?.(false);
  };
  rl.on("SIGINT", () => {
    output.write("\n");
    rl.close();
  });
  const source = queuedLines(
    rl,
    () => {
      input.setRawMode?.(true);
      rl.resume();
      rl.prompt();
    },
    idle,
  );
  idle();
  return source;
}

/** Blank lines are passed on as they are: the run loop skips them in both modes. */
export function linePrompts(input: Readable): PromptSource {
  const rl = readline.createInterface({ input, crlfDelay: Infinity, terminal: false });
  return queuedLines(rl, () => undefined, () => undefined);
}
