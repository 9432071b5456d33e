/** Run the built CLI on a real pseudo-terminal (util-linux `script`), to type into it as a person would. */
import { execa } from "execa";
import { NUDGE_CLI } from "./run-nudge.js";

export interface TerminalOptions {
  /** TERM for nudge: "dumb" (no cursor movement, no status line) unless a test wants a real terminal. */
  term?: string;
  /** Leave colour on (NO_COLOR empty) instead of the NO_COLOR=1 every other run has. */
  color?: boolean;
  /** The terminal's size (the pty's, set with stty); unset, the pty says 0×0 and nudge assumes 80×24. */
  size?: { cols: number; rows: number };
}

export function inTerminal(cwd: string, args: string[], env: Record<string, string> = {}, o: TerminalOptions = {}) {
  // `exec`: nudge becomes the shell itself, so keys like Ctrl-C reach nudge alone.
  // script -q: no banner; -f: flush as it goes; -e: exit with the child's code; -c: the command.
  const size = o.size ? `stty cols ${o.size.cols} rows ${o.size.rows}; ` : "";
  const command = `${size}exec node ${[NUDGE_CLI, ...args].map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(" ")}`;
  const child = execa("script", ["-qfec", command, "/dev/null"], {
    cwd,
    env: { ...env, SHELL: "/bin/sh", NO_COLOR: o.color ? "" : "1", TERM: o.term ?? "dumb" },
    reject: false,
  });
  let screen = "";
  child.stdout!.on("data", (d: Buffer) => (screen += d.toString()));
  /** What was written so far, escape sequences removed and CRLF as LF. */
  const text = () => plain(screen);
  const waitFor = async (what: string | RegExp, timeoutMs = 20_000) => {
    const start = Date.now();
    // nudge wraps a line wider than the terminal between words: it is found across its rows too.
    const found = (t: string) => (typeof what === "string" ? t.includes(what) : what.test(t));
    while (!found(text()) && !found(unwrapped(text()))) {
      if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what} in:\n${text()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return { child, waitFor, type: (keys: string) => child.stdin!.write(keys), screen: () => screen, text };
}

/** Terminal output without escape sequences (colour, cursor movement, mode switches), CRLF as LF. */
export function plain(text: string): string {
  return text
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
    .replace(/\u001b[()][0-9A-Z]/g, "")
    .replace(/\r\n/g, "\n");
}

/** Terminal text with each line end (and the indent after it) read as one space: wrapped lines whole again. */
export function unwrapped(text: string): string {
  return text.replace(/ *\r?\n */g, " ");
}
