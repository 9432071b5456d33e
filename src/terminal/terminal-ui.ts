/**
 * The terminal frontend in one piece, for `nudge claude run` on a terminal: the prompt line (a
 * PromptSource), the Asker for claude's requests, the status line, and the screen that all output
 * goes through so the bottom block (status, type-ahead, prompt, questions) is never torn.
 *
 *   const ui = openTerminalUi({ input: process.stdin, output: process.stdout, errorOutput: process.stderr,
 *                               style, cwd, onInterrupt: () => live.interrupt(), onHangUp: () => live.interrupt() });
 *   renderer = new EventRenderer({ write: ui.write, ... });        // claude's words
 *   say = ui.say;                                                 // nudge's notices (stderr)
 *   for (;;) {
 *     const prompt = await ui.prompts.next();          // null: Ctrl-C twice, Ctrl-D, or a hang-up
 *     if (prompt === null) break;
 *     ui.status.start();                               // each event: renderer.render(e); ui.observe(e)
 *     await live.runTurn(prompt);
 *     ui.status.stop();
 *   }
 *   ui.close();                                        // then, if ui.hungUp: exit status 129
 */
import type { StreamEvent } from "../claude/stream-events.js";
import { visible } from "../base/inert-text.js";
import { Keyboard, type TerminalInput } from "./keyboard.js";
import { Screen, type TerminalOutput } from "./screen.js";
import { StatusLine } from "./status-line.js";
import type { Style } from "./style.js";
import { TerminalAsker } from "./terminal-asker.js";
import { TerminalPrompts, type TerminalPromptsOptions } from "./tty-prompts.js";

export interface TerminalUiOptions {
  /** A terminal (process.stdin when it is a TTY). */
  input: TerminalInput;
  /** Where claude's words go (process.stdout). */
  output: TerminalOutput;
  /** Where nudge's notices go (process.stderr). */
  errorOutput?: TerminalOutput;
  style: Style;
  /** Paths are shown relative to this (the folder claude works in). */
  cwd: string;
  /** Ctrl-C or Esc while claude works: interrupt the turn. */
  onInterrupt: () => void;
  /** The terminal went away (SIGHUP, EIO), at the prompt or mid-turn: end the turn; `prompts.next()` resolves null. */
  onHangUp?: () => void;
  /** The prompt ("› " by default). */
  prompt?: string;
  /** Shift-Tab: the next permission mode (the caller tells claude, then `setMode`). */
  onCycleMode?: () => void;
  /** A plan approved with "accept edits from now on" (claude is told with the answer; the caller shows the mode). */
  onAcceptEdits?: () => void;
  /** The repository's prompt history (↑, Ctrl-R), kept across runs. */
  history?: TerminalPromptsOptions["history"];
  /** The status line while claude works; default: when stdout is a terminal that can move the cursor. */
  statusLine?: boolean;
  /** Take SIGHUP as the terminal closing (default true); without, the read error that follows it still is. */
  watchSighup?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface TerminalUi {
  readonly prompts: TerminalPrompts;
  readonly asker: TerminalAsker;
  readonly status: StatusLine;
  readonly screen: Screen;
  /** Claude's words, to `output`, above the bottom block. */
  write(text: string): void;
  /** One notice line, to `errorOutput`, above the bottom block. */
  say(line: string): void;
  /** The permission mode's label, under the prompt line and on the status line ("" for the default). */
  setMode(label: string): void;
  /** Follow claude's events on the status line (same as `status.observe`). */
  observe(event: StreamEvent): void;
  /** The terminal went away: exit with the hang-up status (129) once the bundle is complete. */
  readonly hungUp: boolean;
  /** Put the terminal back as it was (idempotent). */
  close(): void;
}

export function openTerminalUi(o: TerminalUiOptions): TerminalUi {
  const env = o.env ?? process.env;
  const errorOutput = o.errorOutput ?? o.output;
  // The block is drawn on whichever of stdout/stderr is the terminal (stdout may be piped to a file).
  const term = o.output.isTTY ? o.output : errorOutput;
  const ansi = term.isTTY === true && env.TERM !== "dumb";
  const screen = new Screen(term, ansi);
  const keyboard = new Keyboard({ input: o.input, output: term, watchSighup: o.watchSighup, bracketedPaste: ansi });
  // Writes to either stream after a hang-up fail with EIO: noticed, never fatal (nudge's own notices
  // included). The keyboard watches the terminal itself already.
  for (const stream of new Set([o.output, errorOutput])) if (stream !== term) keyboard.watch(stream);
  const status = new StatusLine({
    screen,
    style: o.style,
    cwd: o.cwd,
    enabled: o.statusLine ?? (ansi && o.output.isTTY === true),
  });
  const prompts = new TerminalPrompts({
    keyboard,
    screen,
    style: o.style,
    prompt: o.prompt,
    history: o.history,
    onCycleMode: o.onCycleMode,
    onInterrupt: o.onInterrupt,
    onPrompt: () => status.stop(),
  });
  const asker = new TerminalAsker({
    keyboard,
    screen,
    style: o.style,
    onAcceptEdits: o.onAcceptEdits,
    terminalFd: (term as { fd?: number }).fd,
    env,
    beforeQuestion: () => {
      const held = prompts.holdBackRecent();
      if (held.length === 0) return;
      const shown = held.map((h) => `"${visible(h.replace(/\n/g, " ⏎ "))}"`).join(", ");
      screen.writeLines(
        `${o.style.yellow(`! ${shown}, typed just before this question, was not sent: it waits on the prompt line (Enter sends it, Ctrl-U clears it)`)}\n`,
        errorOutput,
      );
    },
  });
  // (The prompt line tells the screen itself.)
  keyboard.onHangUp(() => {
    status.stop();
    o.onHangUp?.();
  });
  return {
    prompts,
    asker,
    status,
    screen,
    write: (text) => screen.write(text, o.output),
    say: (line) => screen.writeLines(`${line}\n`, errorOutput),
    observe: (event) => {
      // At the prompt too: how full the context is matters most when deciding what to ask next.
      if (status.observe(event)) prompts.setContext(status.context.text());
    },
    setMode(label) {
      prompts.setMode(label);
      status.setMode(label);
    },
    get hungUp() {
      return keyboard.hungUp;
    },
    close() {
      status.stop();
      prompts.close();
      screen.clear();
    },
  };
}
