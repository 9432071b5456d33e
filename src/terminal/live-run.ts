/**
 * `nudge claude run` on the terminal: the terminal's side of a live session (src/session/):
 * prompts from the prompt line (or stdin lines), claude's words on stdout, nudge's notices on
 * stderr, questions asked on the terminal, Ctrl-C and signals turned into the session's
 * interrupt and stop. The session itself decides everything else.
 */
import type { Store } from "../bundle/store.js";
import { totalCost } from "../bundle/summary.js";
import type { ClaudeFlags } from "../claude/claude-process.js";
import { formatCost } from "../format.js";
import type { RuleSet } from "../rules/parse-rules.js";
import { rulesGuard } from "../session/rules-guard.js";
import type { Conversation } from "../session/conversation.js";
import type { Frontend, PromptSource } from "../session/frontend.js";
import type { LoopHooks } from "../loop/loop-hooks.js";
import type { SessionChoice } from "../session/open-session.js";
import { runSession, type RunSessionInput } from "../session/run-session.js";
import { EventRenderer } from "./event-renderer.js";
import { shellQuote } from "./format.js";
import { linePrompts, terminalPrompts } from "./prompt-input.js";
import { colorEnabled, makeStyle } from "./style.js";

export interface LiveRunInput {
  store: Store;
  cwd: string;
  bin: string;
  claudeConfigDir: string;
  choice: SessionChoice;
  flags: Omit<ClaudeFlags, "resume">;
  verbose: boolean;
  force: boolean;
  firstPrompt?: string;
  /** The project's rules (.nudge/rules.yaml), loaded before anything starts. */
  rules: RuleSet;
  afterTurn?: RunSessionInput["afterTurn"];
  /** An agentic loop (`nudge claude loop`) drives this run. */
  loop?: LoopHooks;
}

/** Runs the session; returns the exit status (129 when the terminal hung up). */
export async function liveRun(input: LiveRunInput): Promise<number> {
  const style = makeStyle(colorEnabled(process.stdout));
  const errStyle = makeStyle(colorEnabled(process.stderr));
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const renderer = new EventRenderer({
    style,
    write: (t) => process.stdout.write(t),
    // A line that is not JSON: the recorder's own warning says so, with its line number.
    notice: () => undefined,
    verbose: input.verbose,
    showPrompts: false,
    cwd: input.cwd,
  });
  const tty = process.stdin.isTTY === true;
  const prompts: PromptSource = tty ? terminalPrompts(process.stdin, process.stdout, style.bold("› ")) : linePrompts(process.stdin);
  const frontend: Frontend = {
    prompts,
    asker: null,
    render: (event) => renderer.render(event),
    turnEnded: (turn) => renderer.turnEnd(turn),
    say: (text) => say(errStyle.dim(text)),
    warn: (text) => say(errStyle.yellow(`! ${text}`)),
    error: (message, hint) => {
      say(`${errStyle.red("error:")} ${message}`);
      if (hint) say(`${errStyle.dim("hint:")} ${hint}`);
    },
    // Without a terminal, a scripted /rewind goes ahead: its plan is shown, and what it replaces is backed up for /undo.
    confirm: async (plan, question) => {
      for (const line of plan) say(line);
      if (!tty) return true;
      say(`${question} [y/N]`);
      return /^y(es)?$/i.test(((await prompts.next()) ?? "").trim());
    },
    resumeMismatch: async (changed) => {
      say(errStyle.yellow(`! the files changed since this conversation last ran: ${changed.slice(0, 10).join(", ")}${changed.length > 10 ? ` and ${changed.length - 10} more` : ""}`));
      if (!tty) {
        say(errStyle.dim("  claude is told which files changed; they are recorded as your edits"));
        return "tell";
      }
      say("[r]ewind the files to match the conversation, or [c]ontinue and tell claude what changed? [r/C]");
      return /^r/i.test(((await prompts.next()) ?? "").trim()) ? "rewind" : "tell";
    },
  };

  let conversation: Conversation | null = null;
  let hungUp = false;
  const onSigint = () => {
    const handled = input.loop?.sigint();
    if (handled) return say(errStyle.yellow(handled));
    const state = conversation?.interrupt() ?? "idle";
    if (state === "interrupting") say(errStyle.yellow("⏸ interrupting the turn… (Ctrl-C again stops claude)"));
    else if (state === "killed") say(errStyle.red("■ stopping claude; the turn is kept as incomplete"));
    else prompts.close();
  };
  // kill, the terminal closing, Ctrl-\: stop the turn in flight, take no more prompts, and end the
  // session normally, so the bundle is complete rather than crashed.
  const onTerminate = (signal: NodeJS.Signals) => {
    if (signal === "SIGHUP") hungUp = true;
    say(errStyle.yellow(`■ ${signal}: ending the session`));
    if (conversation) conversation.stop();
    else prompts.close();
  };
  const signals: NodeJS.Signals[] = ["SIGTERM", "SIGHUP", "SIGQUIT"];
  process.on("SIGINT", onSigint);
  for (const s of signals) process.on(s, onTerminate);
  try {
    const outcome = await runSession({
      store: input.store,
      cwd: input.cwd,
      bin: input.bin,
      claudeConfigDir: input.claudeConfigDir,
      env: process.env,
      choice: input.choice,
      flags: input.flags,
      firstPrompt: input.firstPrompt,
      force: input.force,
      frontend: input.loop ? input.loop.frontend(frontend, tty) : frontend,
      guard: rulesGuard(input.rules, input.store.repoRoot, (line) => frontend.say(`⚖ ${line}`)),
      afterTurn: input.loop?.afterTurn ?? input.afterTurn,
      onConversation: (c) => {
        conversation = c;
        input.loop?.attach(c);
      },
    });
    const turns = outcome.turns.length - 1;
    if (outcome.discarded) say(errStyle.dim(`● nothing was asked; session ${outcome.id} is not kept`));
    else say(errStyle.dim(`● session ${outcome.id}: ${turns} turn${turns === 1 ? "" : "s"}, ${formatCost(totalCost(outcome.turns))} · continue with: nudge claude run -r ${shellQuote(outcome.id)}`));
  } finally {
    // Only once the session has ended: a Ctrl-C or a signal before that must never kill nudge mid-save.
    prompts.close();
    process.off("SIGINT", onSigint);
    for (const s of signals) process.off(s, onTerminate);
  }
  return hungUp ? 129 : 0;
}
