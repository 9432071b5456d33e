/**
 * An agentic loop on top of a live session: it hands the conversation one prompt per iteration,
 * runs the check after each turn and keeps its result on the turn, watches the guards and the
 * budgets, and decides when to stop. Every iteration is one ordinary turn of one session, so
 * everything nudge does with sessions works on a loop.
 *
 * It plugs into a frontend (the terminal's, through `LoopHooks`): its prompts replace the user's
 * (a line the user types during the loop still goes first: that is how a loop is steered), its
 * render sees claude's tool calls on their way to the screen, and it takes Ctrl-C first.
 */
import type { Turn } from "../bundle/manifest-schema.js";
import { isToolUse, type StreamEvent } from "../claude/stream-events.js";
import type { SessionRecorder } from "../recorder/session-recorder.js";
import { isSlashCommand, type Conversation } from "../session/conversation.js";
import type { Frontend, PromptSource } from "../session/frontend.js";
import { apiFailureHint, unfixableApiFailure, type ApiFailure } from "./api-failure.js";
import { bestTurn } from "./best-turn.js";
import { budgetSpent, timeSpent, type Budget } from "./budget.js";
import { runCheck, type CheckRun } from "./check-run.js";
import { describeSummary, parseTestSummary } from "./check-summary.js";
import { Guards, type GuardSettings, type Trip } from "./guards.js";
import { readAhead } from "./read-ahead.js";
import type { LoopHooks } from "./loop-hooks.js";
import { checked, describeCheck, type Iteration, type LoopOutcome, type StopReason } from "./loop-report.js";
import { renderTemplate, type LoopPrompts, type PromptValues, type Template } from "./prompt-template.js";

export interface LoopConfig {
  goal: string | null;
  check: string;
  checkTimeoutMs: number;
  prompts: LoopPrompts;
  budget: Budget;
  guards: GuardSettings;
  /** The check as it stood before the first turn; on turn 0 of a new session. */
  baseline: CheckRun;
  newSession: boolean;
  /** When the loop started (the budget's clock), epoch ms. */
  startedAt: number;
  verbose: boolean;
}

type Phase = "turn" | "check" | "pause" | "idle";

export class LoopDriver implements LoopHooks {
  private phase: Phase = "idle";
  private iteration = 0;
  private reason: StopReason | null = null;
  private next: string | null = null;
  /** A slash command the loop itself sends (a rewind the user chose at a pause). */
  private slash: string | null = null;
  private intervention = false;
  private stopAfterTurn = false;
  private closed = false;
  private timeUp = false;
  private pendingTrip: Trip | null = null;
  /** The API error the turn in flight ended with, when no further iteration can get past it. */
  private apiFailure: ApiFailure | null = null;
  private readonly iterations: Iteration[] = [];
  private readonly guards: Guards;
  private checkAbort: AbortController | null = null;
  private conversation: Conversation | null = null;
  private base: Frontend | null = null;
  private user: PromptSource | null = null;
  private tty = false;
  private readonly timer: NodeJS.Timeout | null;

  constructor(private readonly c: LoopConfig) {
    this.guards = new Guards(c.guards);
    this.guards.baseline(c.baseline);
    const minutes = c.budget.minutes;
    this.timer = minutes === null ? null : setTimeout(() => this.outOfTime(minutes), Math.max(0, c.startedAt + minutes * 60_000 - Date.now()));
    this.timer?.unref();
  }

  frontend(base: Frontend, tty: boolean): Frontend {
    this.base = base;
    this.user = tty || base.prompts.hasQueued ? base.prompts : readAhead(base.prompts);
    this.tty = tty;
    const user = this.user;
    const prompts: PromptSource = {
      next: () => this.nextPrompt(),
      // Never "queued": after the check ran, what is in the work tree that is not claude's (the
      // check's own output, the user's edits) must be captured before the next turn.
      hasQueued: () => false,
      close: () => {
        this.closed = true;
        this.reason ??= { kind: "user", message: "the run was stopped" };
        this.checkAbort?.abort();
        user.close();
      },
    };
    const render = (event: StreamEvent) => {
      this.observe(event);
      base.render(event);
    };
    // The rewind the user chose at a pause runs as the conversation's /rewind: declined at its
    // confirmation, or refused (a file in the way), the loop has stopped on the guard after all.
    const notRewound = () => {
      if (this.reason?.kind === "rewound") this.reason = { kind: "guard", trip: this.reason.trip };
    };
    const confirm = async (plan: string[], question: string) => {
      const yes = await base.confirm(plan, question);
      if (!yes) notRewound();
      return yes;
    };
    const error = (message: string, hint?: string) => {
      notRewound();
      base.error(message, hint);
    };
    return { ...base, prompts, render, confirm, error };
  }

  attach(conversation: Conversation): void {
    this.conversation = conversation;
  }

  /** Ctrl-C: the first stops the loop after this turn; the second interrupts the turn (the run does that). */
  sigint(): string | null {
    if (this.phase === "check") {
      this.reason ??= { kind: "user", message: "Ctrl-C" };
      this.checkAbort?.abort();
      return "■ stopping the check; the loop ends";
    }
    if (this.phase === "turn" && !this.stopAfterTurn) {
      this.stopAfterTurn = true;
      return "⏸ the loop stops after this turn (Ctrl-C again interrupts the turn)";
    }
    this.reason ??= { kind: "user", message: "Ctrl-C" };
    return null;
  }

  readonly afterTurn = async (turn: Turn, sessionId: string, recorder: SessionRecorder): Promise<boolean> => {
    this.phase = "check";
    try {
      return await this.checkTurn(turn, sessionId, recorder);
    } finally {
      if (this.phase === "check") this.phase = "idle";
    }
  };

  outcome(): LoopOutcome {
    return {
      reason: this.reason ?? { kind: "user", message: "the session ended" },
      iterations: this.iterations,
      costUsd: this.iterations.reduce((sum, i) => sum + i.costUsd, 0),
      elapsedMs: Date.now() - this.c.startedAt,
    };
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  private async nextPrompt(): Promise<string | null> {
    if (this.slash !== null) {
      const slash = this.slash;
      this.slash = null;
      return slash;
    }
    if (this.reason || this.closed) return null;
    if (this.iteration === 0) return this.start(this.render(this.c.prompts.first, this.c.baseline), false);
    // A line typed during the loop steers it: it is the next prompt, and the loop goes on after it.
    if (this.user?.hasQueued?.()) {
      const line = await this.user.next();
      if (line !== null && line.trim() !== "") {
        if (!isSlashCommand(line)) return this.start(line, true);
        if (/^\/(exit|quit|q)$/.test(line.trim())) this.reason ??= { kind: "user", message: line.trim() };
        return line;
      }
      if (this.reason || this.closed) return null;
    }
    return this.start(this.next!, false);
  }

  private start(prompt: string, intervention: boolean): string {
    this.iteration++;
    this.intervention = intervention;
    this.phase = "turn";
    this.say(`↻ iteration ${this.iteration} of ${this.c.budget.iterations}${intervention ? " · your line" : ""}`);
    return prompt;
  }

  private async checkTurn(turn: Turn, sessionId: string, recorder: SessionRecorder): Promise<boolean> {
    if (this.iterations.length === 0) {
      this.iterations.push({ sessionId, n: turn.n - 1, iteration: 0, intervention: false, check: this.c.baseline, costUsd: 0 });
      if (this.c.newSession && turn.n === 1) await recorder.annotateTurn(0, { check: stored(this.c.baseline) });
    }
    const entry: Iteration = { sessionId, n: turn.n, iteration: this.iteration, intervention: this.intervention, check: null, costUsd: turn.result?.costUsd ?? 0 };
    this.iterations.push(entry);
    // Stopping now (Ctrl-C twice, the time is up): no check to wait for.
    const userInterrupted = this.stopAfterTurn && turn.status === "interrupted";
    if (this.closed || this.timeUp || userInterrupted) {
      this.reason ??= { kind: "user", message: "Ctrl-C" };
      return false;
    }
    const failure = this.apiFailure;
    this.apiFailure = null;
    if (failure) {
      const status = failure.status !== null ? `HTTP ${failure.status}: ` : "";
      this.reason = { kind: "api", message: `${status}${failure.text}`, hint: apiFailureHint(failure, sessionId) };
      return false;
    }
    this.checkAbort = new AbortController();
    const run = await runCheck(this.c.check, { cwd: recorder.manifest.repo.cwd, timeoutMs: this.c.checkTimeoutMs, signal: this.checkAbort.signal });
    this.checkAbort = null;
    if (run.aborted) return false; // the reason is set by whoever stopped it
    await recorder.annotateTurn(turn.n, { check: stored(run) });
    entry.check = run;
    this.showCheck(run);
    if (run.exitCode === 0) {
      this.reason = { kind: "passed" };
      return false;
    }
    if (this.stopAfterTurn) {
      this.reason ??= { kind: "user", message: "Ctrl-C" };
      return false;
    }
    const spent = budgetSpent(this.c.budget, { iterations: this.iteration, costUsd: this.outcome().costUsd, elapsedMs: Date.now() - this.c.startedAt });
    if (spent) {
      this.reason = { kind: "budget", message: spent };
      return false;
    }
    const found = this.guards.iteration(turn, run);
    const trip = this.pendingTrip ?? found;
    this.pendingTrip = null;
    this.next = this.render(this.c.prompts.next, run);
    return trip ? this.pause(trip, turn, sessionId) : true;
  }

  /** A guard tripped: on a terminal, ask; otherwise stop. */
  private async pause(trip: Trip, turn: Turn, sessionId: string): Promise<boolean> {
    this.warn(`guard: ${trip.message} (${trip.flag})`);
    if (this.user?.hasQueued?.()) {
      this.say("the line you typed goes next: the loop goes on");
      this.guards.reset(trip.guard);
      return true;
    }
    if (!this.tty || !this.user) {
      this.reason = { kind: "guard", trip };
      return false;
    }
    const best = bestTurn(checked(this.iterations));
    const rewindTo = best && best.sessionId === sessionId && best.n !== turn.n ? best : null;
    const options = `[c]ontinue, [s]top${rewindTo ? `, or [r]ewind to turn ${rewindTo.n} (the best so far: ${describeCheck(rewindTo.check)})` : ""}`;
    this.say(`${options}? [c/S${rewindTo ? "/r" : ""}]`);
    this.phase = "pause";
    const answer = (await this.user.next())?.trim().toLowerCase() ?? null;
    this.phase = "idle";
    if (answer === null) {
      this.reason ??= { kind: "guard", trip };
      return false;
    }
    if (answer.startsWith("c")) {
      this.guards.reset(trip.guard);
      return true;
    }
    if (rewindTo && answer.startsWith("r")) {
      // The conversation's own /rewind: code and claude's memory go back, the plan is shown first.
      this.slash = `/rewind ${rewindTo.n}`;
      this.reason = { kind: "rewound", turn: rewindTo.n, trip };
      return true;
    }
    this.reason = { kind: "guard", trip };
    return false;
  }

  /** Claude's tool calls, on their way to the screen: a call repeated too often cuts the turn short. */
  private observe(event: StreamEvent): void {
    if (event.type === "result" && this.phase === "turn") this.apiFailure = unfixableApiFailure(event);
    if (event.type !== "assistant" || this.phase !== "turn") return;
    for (const block of event.message.content) {
      if (!isToolUse(block)) continue;
      const trip = this.guards.toolCall(block.id, block.name, block.input);
      if (trip && !this.pendingTrip) {
        this.pendingTrip = trip;
        this.warn(`guard: ${trip.message} (${trip.flag}); interrupting the turn`);
        this.conversation?.interrupt();
      }
    }
  }

  private outOfTime(minutes: number): void {
    this.timeUp = true;
    this.reason ??= { kind: "budget", message: `${timeSpent(minutes)} passed (--max-minutes ${minutes})` };
    if (this.phase === "turn") {
      this.warn(`the loop's time is up (--max-minutes ${minutes}): interrupting the turn`);
      this.conversation?.interrupt();
    } else if (this.phase === "check") this.checkAbort?.abort();
  }

  private render(template: Template, check: CheckRun): string {
    const summary = parseTestSummary(check.output);
    const values: PromptValues = {
      goal: this.c.goal ?? "",
      iteration: String(this.iteration + 1),
      max_iterations: String(this.c.budget.iterations),
      check: this.c.check,
      exit_code: check.exitCode === null ? "timeout" : String(check.exitCode),
      summary: summary ? describeSummary(summary) : "",
      output: check.tail === "" ? "(no output)" : check.tail,
    };
    return renderTemplate(template, values);
  }

  private showCheck(run: CheckRun): void {
    const line = `check ${describeCheck(run)} · ${run.durationMs < 1000 ? `${run.durationMs}ms` : `${(run.durationMs / 1000).toFixed(1)}s`}`;
    this.say(`${run.exitCode === 0 ? "✓" : "✗"} ${line}`);
    if (this.c.verbose && run.exitCode !== 0) for (const l of run.tail.split("\n").slice(-10)) this.say(`  ${l}`);
  }

  private say(text: string): void {
    this.base?.say(text);
  }

  private warn(text: string): void {
    this.base?.warn(text);
  }
}

/** What a turn keeps of a check (the bundle's schema). */
export function stored(run: CheckRun): NonNullable<Turn["check"]> {
  return { command: run.command, exitCode: run.exitCode, tail: run.tail, durationMs: run.durationMs };
}
