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

export function terminalPrompts(input: Readable, output: Writable, promptText: string): PromptSource {
  let current: readline.Interface | null = null;
  return {
    next() {
      return new Promise((resolve) => {
        // A fresh interface per question: between questions the terminal is back in cooked mode,
        // so Ctrl-C during a turn is a real SIGINT that nudge turns into an interrupt.
        const rl = readline.createInterface({ input, output, terminal: true, historySize: 100 });
        current = rl;
        let answered = false;
        const finish = (value: string | null) => {
          if (answered) return;
          answered = true;
          current = null;
          rl.close();
          resolve(value);
        };
        rl.on("SIGINT", () => {
          output.write("\n");
          finish(null);
        });
        rl.on("close", () => finish(null));
        rl.question(promptText, (answer) => finish(answer));
      });
    },
    close() {
      current?.close();
    },
  };
}

export function linePrompts(input: Readable): PromptSource {
  const rl = readline.createInterface({ input, crlfDelay: Infinity, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async next() {
      for (;;) {
        const { value, done } = await lines.next();
        if (done) return null;
        if (value.trim() !== "") return value;
      }
    },
    close() {
      rl.close();
    },
  };
}
