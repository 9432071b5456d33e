/**
 * Where prompts come from. On a terminal: the prompt line (tty-prompts.ts, through
 * openTerminalUi). Otherwise: each stdin line is one prompt, read ahead but sent only after the
 * previous turn's result; EOF means no more prompts.
 */
import readline from "node:readline";
import type { Readable } from "node:stream";
import type { PromptSource } from "../live/frontend.js";

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
