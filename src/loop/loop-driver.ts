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
import type { Restart } from "../session/claude-link.js";
import { isSlashCommand, type Conversation } from "../session/conversation.js";
import type { Frontend, PromptSource } from "../session/frontend.js";
import { apiFailureHint, unfixableApiFailure, type ApiFailure } from "./api-failure.js";
import { bestTurn } from "./best-turn.js";
import type { Sandbox } from "../claude/sandbox.js";
import { budgetSpent, timeSpent, type Budget } from "./budget.js";
import { runCheck, type CheckRun } from "./check-run.js";
import { describeSummary, parseTestSummary } from "./check-summary.js";
import { Guards, type GuardSettings, type Trip } from "./guards.js";
import { readAhead } from "./read-ahead.js";
import type { LoopHooks } from "./loop-hooks.js";
import { checked, describeCheck, type Iteration, type LoopOutcome, type StopReason } from "./loop-report.js";
import { writeIterationLog } from "./iteration-log.js";
import { LastMessage } from "./last-message.js";
import type { ModelPlan } from "./model-plan.js";
import { renderTemplate, type LoopPrompts, type PromptValues, type Template } from "./prompt-template.js";
import { iterationVerdict, saidPromise } from "./iteration-verdict.js";
import { readVerdict } from "./sigils.js";
import { VERIFIER_FLAGS, verifierFeedback } from "./verifier.js";

export interface LoopConfig {
  goal: string | null;
  /** The --until check; null: the promise alone says when it is done. */
  check: string | null;
  checkTimeoutMs: number;
  prompts: LoopPrompts;
  /** The prompts as they are now (--prompt-file is read again before every iteration). */
  reloadPrompts: () => Promise<LoopPrompts>;
  /** Every iteration a new claude conversation (--fresh). */
  fresh: boolean;
  /** --until-promise: done when claude's last message says <promise>TEXT</promise>. */
  promise: string | null;
  /** --fail-promise: claude gives up (exit 3). */
  failPromise: string;
  /** --verify: the verifier's prompt, made afresh each time. */
  verifyPrompt: (() => Promise<string>) | null;
  models: ModelPlan;
  budget: Budget;
  guards: GuardSettings;
  /** The check as it stood before the first turn; on turn 0 of a new session (null: no check). */
  baseline: CheckRun | null;
  newSession: boolean;
  /** When the loop started (the budget's clock), epoch ms. */
  startedAt: number;
  verbose: boolean;
  /** --sandbox: the check runs confined as claude does. */
  sandbox: Sandbox | null;
  /** The verifier's sandbox (the work tree read-only too); null where bubblewrap cannot make one. */
  verifierSandbox: Sandbox | null;
}

type Phase = "turn" | "check" | "pause" | "idle";

export class LoopDriver implements LoopHooks {
  private phase: Phase = "idle";
  private iteration = 0;
  private reason: StopReason | null = null;
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
  private prompts: LoopPrompts;
  /** The check after the last iteration, for the next prompt (null: no check). */
  private lastCheck: CheckRun | null;
  /** What nudge tells claude with the next prompt (a refuted promise, the verifier's reason). */
  private feedback: string[] = [];
  /** claude's last message in the turn in flight, and the model that wrote it. */
  private readonly said = new LastMessage();
  /** The next prompt is the verifier's; the turn in flight is the verifier's. */
  private verifyNext = false;
  private verifying = false;
  /** The claude process runs as the last iteration left it: its model, a verifier's tools. */
  private running: { model: string | undefined; verifier: boolean } | null = null;
  /** The loop's own claude conversation (not a verifier's), to go back to when not --fresh. */
  private mainConversation: string | null = null;
  private logsShown = false;

  constructor(private readonly c: LoopConfig) {
    this.prompts = c.prompts;
    this.lastCheck = c.baseline;
    this.guards = new Guards(c.guards);
    if (c.baseline) this.guards.baseline(c.baseline);
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
    if (this.verifyNext) return this.startVerifier();
    if (this.iteration > 0 && this.user?.hasQueued?.()) {
      // A line typed during the loop steers it: it is the next prompt, and the loop goes on after it.
      const line = await this.user.next();
      if (line !== null && line.trim() !== "") {
        if (!isSlashCommand(line)) {
          if (!this.c.fresh) return this.start(line, true);
          // A fresh claude would get the line alone, without the task: it goes with the prompt instead.
          this.feedback.push(`[nudge loop] From the person running this loop: ${line.trim()}`);
          return this.start(await this.iterationPrompt(), true);
        }
        if (/^\/(exit|quit|q)$/.test(line.trim())) this.reason ??= { kind: "user", message: line.trim() };
        return line;
      }
      if (this.reason || this.closed) return null;
    }
    return this.start(await this.iterationPrompt(), false);
  }

  /** The next iteration's prompt, from --prompt-file as it is now: an edit to it steers the iterations after it. */
  private async iterationPrompt(): Promise<string> {
    try {
      this.prompts = await this.c.reloadPrompts();
    } catch (error) {
      this.warn(`${error instanceof Error ? error.message : String(error)}; this iteration uses the prompt as it was`);
    }
    const template = this.iteration === 0 ? this.prompts.first : this.prompts.next;
    const prompt = this.render(template, this.lastCheck);
    this.feedback = []; // said: a line the user types instead keeps it for the iteration after
    return prompt;
  }

  private async start(prompt: string, intervention: boolean): Promise<string> {
    this.iteration++;
    this.intervention = intervention;
    await this.prepareClaude(false);
    this.phase = "turn";
    this.say(`↻ iteration ${this.iteration} of ${this.c.budget.iterations}${intervention ? " · your line" : ""}${this.c.fresh ? " · fresh context" : ""}${this.running?.model ? ` · ${this.running.model}` : ""}`);
    return prompt;
  }

  private async startVerifier(): Promise<string> {
    this.verifyNext = false;
    this.verifying = true;
    const prompt = await this.c.verifyPrompt!();
    await this.prepareClaude(true);
    this.phase = "turn";
    this.say(`⚑ verifying iteration ${this.iteration}: a fresh claude with read-only tools (${VERIFIER_FLAGS.tools})`);
    return prompt;
  }

  /**
   * The claude process the next turn needs: a new conversation for every --fresh iteration and
   * every verifier, the loop's own conversation back after a verifier, another model when the
   * strategy or a hint says so. Ending claude between turns is cheap: the next turn starts it.
   */
  private async prepareClaude(verifier: boolean): Promise<void> {
    const model = verifier ? this.running?.model : this.c.models.next();
    const flags: Restart["flags"] = { ...(model ? { model } : {}), ...(verifier ? VERIFIER_FLAGS : {}) };
    const was = this.running;
    this.running = { model, verifier };
    if (!this.conversation) return;
    // The verifier in a sandbox of its own, the work tree read-only; the iterations back in the session's.
    const sandbox = verifier ? this.c.verifierSandbox : undefined;
    if (verifier || this.c.fresh) return this.conversation.restartClaude({ next: { kind: "fresh" }, flags, sandbox });
    if (was === null ? model === undefined : !was.verifier && was.model === model) return;
    const main = this.mainConversation;
    await this.conversation.restartClaude({ next: main ? { kind: "session", claudeSessionId: main } : null, flags, sandbox });
  }

  private async checkTurn(turn: Turn, sessionId: string, recorder: SessionRecorder): Promise<boolean> {
    if (this.iterations.length === 0) {
      this.iterations.push({ sessionId, n: turn.n - 1, iteration: 0, intervention: false, check: this.c.baseline, costUsd: 0 });
      if (this.c.newSession && turn.n === 1 && this.c.baseline) await recorder.annotateTurn(0, { check: stored(this.c.baseline) });
    }
    const verifier = this.verifying;
    this.verifying = false;
    const entry: Iteration = { sessionId, n: turn.n, iteration: this.iteration, intervention: this.intervention, check: null, costUsd: turn.result?.costUsd ?? 0, verifier };
    this.iterations.push(entry);
    const log = await writeIterationLog(recorder.files, turn).catch((error: unknown) => {
      this.warn(`could not write the iteration's log: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
    if (log && !this.logsShown) {
      this.logsShown = true;
      this.say(`  iteration logs (raw NDJSON per turn): ${recorder.files.iterations}`);
    }
    const text = this.said.text;
    const verdict = verifier ? readVerdict(text) : null;
    const said = saidPromise(text, this.c);
    await recorder.annotateTurn(turn.n, {
      loop: {
        role: verifier ? "verifier" : "iteration",
        iteration: this.iteration,
        fresh: verifier || this.c.fresh,
        model: this.said.model ?? this.running?.model ?? null,
        promise: verifier ? null : said.recorded,
        verdict: verifier ? (verdict ?? { pass: false, reason: null }) : null,
        log,
      },
    });
    if (!verifier && turn.claudeSessionId) this.mainConversation = turn.claudeSessionId;
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
    if (verifier) return this.afterVerifier(verdict, turn);
    if (said.gaveUp) {
      this.reason = { kind: "failed", promise: said.gaveUp.promise, message: said.gaveUp.reason };
      return false;
    }
    if (said.nextModel !== null) this.say(this.c.models.asked(said.nextModel));
    let run: CheckRun | null = null;
    if (this.c.check !== null) {
      this.checkAbort = new AbortController();
      run = await runCheck(this.c.check, { cwd: recorder.manifest.repo.cwd, timeoutMs: this.c.checkTimeoutMs, signal: this.checkAbort.signal, sandbox: this.c.sandbox });
      this.checkAbort = null;
      if (run.aborted) return false; // the reason is set by whoever stopped it
      await recorder.annotateTurn(turn.n, { check: stored(run) });
      entry.check = run;
      this.lastCheck = run;
      this.showCheck(run);
    }
    const v = iterationVerdict(said, run, this.c);
    if (v.say) this.say(v.say);
    if (v.done) {
      if (this.c.verifyPrompt) {
        // No budget goes past its end for a verifier: a spent one stops the loop unverified (QA).
        const spent = budgetSpent(this.c.budget, { iterations: 0, costUsd: this.outcome().costUsd, elapsedMs: Date.now() - this.c.startedAt });
        if (spent) {
          this.reason = { kind: "budget", message: `${spent}, before the verifier could check the work` };
          return false;
        }
        this.verifyNext = true;
        return true;
      }
      this.reason = { kind: "passed", how: this.doneBy() };
      return false;
    }
    if (v.feedback) this.feedback.push(v.feedback);
    const moved = v.checkPassed ? this.c.models.passed() : this.c.models.failed();
    if (moved) this.say(moved);
    return this.goOn(turn, sessionId, run);
  }

  /** The verifier has answered: done, or its reason goes to the next iteration. */
  private async afterVerifier(verdict: ReturnType<typeof readVerdict>, turn: Turn): Promise<boolean> {
    if (verdict?.pass) {
      this.say("✓ verifier: <verify-pass/>");
      this.reason = { kind: "passed", how: `${this.doneBy()}, and the verifier agreed` };
      return false;
    }
    const why = verdict?.reason ?? null;
    this.warn(`verifier: ${why === null ? "no <verify-pass/> or <verify-fail>…</verify-fail> in its answer: counts as a fail" : `<verify-fail> ${oneLine(why, 200)}`}`);
    this.feedback.push(verifierFeedback(why));
    const moved = this.c.models.passed();
    if (moved) this.say(moved);
    // The verifier changes nothing by design: its turn is no sign of a loop that stopped moving.
    return this.goOn(turn, this.iterations.at(-1)!.sessionId, null, false);
  }

  /** What made the loop done, for its last line. */
  private doneBy(): string {
    const promise = this.c.promise !== null ? `claude said <promise>${this.c.promise}</promise>` : null;
    const check = this.c.check !== null ? "the check passed" : null;
    return [promise, check].filter((x) => x !== null).join(" and ");
  }

  /** Not done: stop on Ctrl-C or a spent budget, pause on a guard, or go on to the next iteration. */
  private async goOn(turn: Turn, sessionId: string, run: CheckRun | null, guarded = true): Promise<boolean> {
    if (this.stopAfterTurn) {
      this.reason ??= { kind: "user", message: "Ctrl-C" };
      return false;
    }
    const spent = budgetSpent(this.c.budget, { iterations: this.iteration, costUsd: this.outcome().costUsd, elapsedMs: Date.now() - this.c.startedAt });
    if (spent) {
      this.reason = { kind: "budget", message: spent };
      return false;
    }
    const found = guarded ? this.guards.iteration(turn, run) : null;
    const trip = this.pendingTrip ?? found;
    this.pendingTrip = null;
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
      // The rewind starts claude anew, in the conversation of that turn.
      this.running = null;
      this.mainConversation = null;
      this.reason = { kind: "rewound", turn: rewindTo.n, trip };
      return true;
    }
    this.reason = { kind: "guard", trip };
    return false;
  }

  /** Claude's tool calls, on their way to the screen: a call repeated too often cuts the turn short. */
  private observe(event: StreamEvent): void {
    if (event.type === "result" && this.phase === "turn") this.apiFailure = unfixableApiFailure(event);
    if (this.phase !== "turn") return;
    this.said.see(event);
    if (event.type !== "assistant" || this.verifying) return; // the verifier's calls are not the loop's work
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

  private render(template: Template, check: CheckRun | null): string {
    const summary = check ? parseTestSummary(check.output) : null;
    const promise = this.c.promise !== null && this.c.prompts.usesDefault ? [`[nudge loop] When the whole task is done, end your last message with <promise>${this.c.promise}</promise>.`] : [];
    const values: PromptValues = {
      goal: this.c.goal ?? "",
      iteration: String(this.iteration + 1),
      max_iterations: String(this.c.budget.iterations),
      check: this.c.check ?? "(no check)",
      exit_code: check === null ? "(no check)" : check.exitCode === null ? "timeout" : String(check.exitCode),
      summary: summary ? describeSummary(summary) : "",
      output: check === null ? "(no check)" : check.tail === "" ? "(no output)" : check.tail,
      feedback: [...this.feedback, ...promise].join("\n\n"),
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

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** What a turn keeps of a check (the bundle's schema). */
export function stored(run: CheckRun): NonNullable<Turn["check"]> {
  return { command: run.command, exitCode: run.exitCode, tail: run.tail, durationMs: run.durationMs };
}
