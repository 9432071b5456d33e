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
import type { Turn } from "../store/manifest-schema.js";
import { isToolUse, type StreamEvent } from "../claude/stream-events.js";
import type { SessionRecorder } from "../recorder/session-recorder.js";
import { isSlashCommand, type Conversation } from "../live/conversation.js";
import type { Frontend, PromptSource } from "../live/frontend.js";
import { apiFailureHint, unfixableApiFailure, type ApiFailure } from "./api-failure.js";
import { BudgetClock, timeSpent } from "./budget.js";
import { runCheck, storedCheck, type CheckRun } from "./check-run.js";
import { pauseQuestion } from "./guard-pause.js";
import { Guards, type Trip } from "./guards.js";
import { iterationPrompt } from "./iteration-prompt.js";
import { writeIterationLog } from "./iteration-log.js";
import { iterationVerdict, saidPromise } from "./iteration-verdict.js";
import { LastMessage } from "./last-message.js";
import { LoopClaude } from "./loop-claude.js";
import type { LoopConfig } from "./loop-config.js";
import { loopFrontend } from "./loop-frontend.js";
import type { LoopHooks } from "./loop-hooks.js";
import { IDLE, type LoopPhase, type TurnRole } from "./loop-phase.js";
import { checkLines, type Iteration, type LoopOutcome, type StopReason } from "./loop-report.js";
import type { LoopPrompts } from "./prompt-template.js";
import { readAhead } from "./read-ahead.js";
import { readVerdict } from "./sigils.js";
import { VERIFIER_FLAGS, verifierFailWarning, verifierFeedback } from "./verifier.js";

/** The session's side of the loop, once the run hands over its frontend (`tty`: someone can be asked). */
interface Io {
  screen: Frontend;
  user: PromptSource;
  tty: boolean;
}

export class LoopDriver implements LoopHooks {
  private phase: LoopPhase = IDLE;
  /** The iteration under way: its number, and whether its prompt is a line the user typed. */
  private iteration = { n: 0, intervention: false };
  private reason: StopReason | null = null;
  /** What asked the loop to stop: the run's input closed, the time is up, one Ctrl-C during a turn. */
  private readonly stopAsked = { inputClosed: false, timeUp: false, afterTurn: false };
  /** A guard that cut a turn short, for the pause after the turn. */
  private tripped: Trip | null = null;
  private readonly iterations: Iteration[] = [];
  private readonly guards: Guards;
  private readonly budget: BudgetClock;
  private readonly claude: LoopClaude;
  private io: Io | null = null;
  /** What the next prompt is made of: the prompts, the check after the last iteration, what nudge tells claude. */
  private readonly promptInputs: { prompts: LoopPrompts; lastCheck: CheckRun | null; feedback: string[] };
  /** claude's last message in the turn in flight, and the model that wrote it. */
  private readonly said = new LastMessage();
  private logsShown = false;

  constructor(private readonly config: LoopConfig) {
    this.promptInputs = { prompts: config.prompts, lastCheck: config.baseline, feedback: [] };
    this.guards = new Guards(config.guards);
    if (config.baseline) this.guards.baseline(config.baseline);
    this.claude = new LoopClaude(config);
    this.budget = new BudgetClock(config.budget, config.startedAt, (minutes) => this.outOfTime(minutes));
  }

  frontend(base: Frontend, tty: boolean): Frontend {
    const user = tty || base.prompts.hasQueued ? base.prompts : readAhead(base.prompts);
    this.io = { screen: base, user, tty };
    return loopFrontend(base, {
      next: () => this.nextPrompt(),
      close: () => {
        this.stopAsked.inputClosed = true;
        this.reason ??= { kind: "user", message: "the run was stopped" };
        if (this.phase.kind === "check") this.phase.abort?.abort();
        user.close();
      },
      observe: (event) => this.observe(event),
      // The loop has stopped on the guard after all.
      notRewound: () => {
        if (this.reason?.kind === "rewound") this.reason = { kind: "guard", trip: this.reason.trip };
      },
    });
  }

  attach(conversation: Conversation): void {
    this.claude.attach(conversation);
  }

  /** Ctrl-C: the first stops the loop after this turn; the second interrupts the turn (the run does that). */
  sigint(): string | null {
    if (this.phase.kind === "check") {
      this.reason ??= { kind: "user", message: "Ctrl-C" };
      this.phase.abort?.abort();
      return "■ stopping the check; the loop ends";
    }
    if (this.phase.kind === "turn" && !this.stopAsked.afterTurn) {
      this.stopAsked.afterTurn = true;
      return "⏸ the loop stops after this turn (Ctrl-C again interrupts the turn)";
    }
    this.reason ??= { kind: "user", message: "Ctrl-C" };
    return null;
  }

  readonly afterTurn = async (turn: Turn, sessionId: string, recorder: SessionRecorder): Promise<boolean> => {
    // A turn the loop did not start (a slash command the user typed) counts as an iteration's.
    const ended = this.phase.kind === "turn" ? this.phase : { role: "iteration" as const, apiFailure: null };
    this.phase = { kind: "check", abort: null };
    try {
      return await this.checkTurn(turn, sessionId, recorder, ended.role, ended.apiFailure);
    } finally {
      if (this.phase.kind === "check") this.phase = IDLE;
    }
  };

  outcome(): LoopOutcome {
    return {
      reason: this.reason ?? { kind: "user", message: "the session ended" },
      iterations: this.iterations,
      costUsd: this.iterations.reduce((sum, i) => sum + i.costUsd, 0),
      elapsedMs: this.budget.elapsedMs(),
    };
  }

  dispose(): void {
    this.budget.dispose();
  }

  private async nextPrompt(): Promise<string | null> {
    const next = this.phase.kind === "idle" ? this.phase.next : null;
    if (next?.kind === "rewind") {
      this.phase = IDLE;
      return `/rewind ${next.turn}`;
    }
    if (this.reason || this.stopAsked.inputClosed) return null;
    if (next?.kind === "verifier") return this.startVerifier();
    const user = this.io?.user;
    if (this.iteration.n > 0 && user?.hasQueued?.()) {
      // A line typed during the loop steers it: it is the next prompt, and the loop goes on after it.
      const line = await user.next();
      if (line !== null && line.trim() !== "") {
        if (!isSlashCommand(line)) {
          if (!this.config.fresh) return this.start(line, true);
          // A fresh claude would get the line alone, without the task: it goes with the prompt instead.
          this.promptInputs.feedback.push(`[nudge loop] From the person running this loop: ${line.trim()}`);
          return this.start(await this.iterationPrompt(), true);
        }
        if (/^\/(exit|quit|q)$/.test(line.trim())) this.reason ??= { kind: "user", message: line.trim() };
        return line;
      }
      if (this.reason || this.stopAsked.inputClosed) return null;
    }
    return this.start(await this.iterationPrompt(), false);
  }

  /** The next iteration's prompt, from --prompt-file as it is now: an edit to it steers the iterations after it. */
  private async iterationPrompt(): Promise<string> {
    const inputs = this.promptInputs;
    try {
      inputs.prompts = await this.config.reloadPrompts();
    } catch (error) {
      this.warn(`${error instanceof Error ? error.message : String(error)}; this iteration uses the prompt as it was`);
    }
    const template = this.iteration.n === 0 ? inputs.prompts.first : inputs.prompts.next;
    const { goal, check, promise, budget, prompts } = this.config;
    const settings = { goal, check, promise, maxIterations: budget.iterations, usesDefault: prompts.usesDefault };
    const prompt = iterationPrompt(template, settings, this.iteration.n + 1, inputs.lastCheck, inputs.feedback);
    inputs.feedback = []; // said: a line the user types instead keeps it for the iteration after
    return prompt;
  }

  private async start(prompt: string, intervention: boolean): Promise<string> {
    this.iteration = { n: this.iteration.n + 1, intervention };
    await this.claude.prepare("iteration");
    this.phase = { kind: "turn", role: "iteration", apiFailure: null };
    const model = this.claude.model;
    this.say(
      `↻ iteration ${this.iteration.n} of ${this.config.budget.iterations}${intervention ? " · your line" : ""}${this.config.fresh ? " · fresh context" : ""}${model ? ` · ${model}` : ""}`,
    );
    return prompt;
  }

  private async startVerifier(): Promise<string> {
    this.phase = IDLE;
    const prompt = await this.config.verifyPrompt!();
    await this.claude.prepare("verifier");
    this.phase = { kind: "turn", role: "verifier", apiFailure: null };
    this.say(
      `⚑ verifying iteration ${this.iteration.n}: a fresh claude with read-only tools (${VERIFIER_FLAGS.tools})`,
    );
    return prompt;
  }

  private async checkTurn(
    turn: Turn,
    sessionId: string,
    recorder: SessionRecorder,
    role: TurnRole,
    failure: ApiFailure | null,
  ): Promise<boolean> {
    const { config } = this;
    if (this.iterations.length === 0) {
      this.iterations.push({
        sessionId,
        n: turn.n - 1,
        iteration: 0,
        intervention: false,
        check: config.baseline,
        costUsd: 0,
      });
      if (config.newSession && turn.n === 1 && config.baseline)
        await recorder.annotateTurn(0, { check: storedCheck(config.baseline) });
    }
    const verifier = role === "verifier";
    const entry: Iteration = {
      sessionId,
      n: turn.n,
      iteration: this.iteration.n,
      intervention: this.iteration.intervention,
      check: null,
      costUsd: turn.result?.costUsd ?? 0,
      verifier,
    };
    this.iterations.push(entry);
    const log = await this.writeLog(recorder, turn);
    const text = this.said.text;
    const verdict = verifier ? readVerdict(text) : null;
    const said = saidPromise(text, config);
    await recorder.annotateTurn(turn.n, {
      loop: {
        role,
        iteration: this.iteration.n,
        fresh: verifier || config.fresh,
        model: this.said.model ?? this.claude.model ?? null,
        promise: verifier ? null : said.recorded,
        verdict: verifier ? (verdict ?? { pass: false, reason: null }) : null,
        log,
      },
    });
    if (!verifier && turn.claudeSessionId) this.claude.remember(turn.claudeSessionId);
    // Stopping now (Ctrl-C twice, the time is up): no check to wait for.
    const userInterrupted = this.stopAsked.afterTurn && turn.status === "interrupted";
    if (this.stopAsked.inputClosed || this.stopAsked.timeUp || userInterrupted) {
      this.reason ??= { kind: "user", message: "Ctrl-C" };
      return false;
    }
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
    if (said.nextModel !== null) this.say(config.models.asked(said.nextModel));
    let run: CheckRun | null = null;
    if (config.check !== null) {
      const abort = new AbortController();
      this.phase = { kind: "check", abort };
      run = await runCheck(config.check, {
        cwd: recorder.manifest.repo.cwd,
        timeoutMs: config.checkTimeoutMs,
        signal: abort.signal,
        sandbox: config.sandbox,
      });
      this.phase = { kind: "check", abort: null };
      if (run.aborted) return false; // the reason is set by whoever stopped it
      await recorder.annotateTurn(turn.n, { check: storedCheck(run) });
      entry.check = run;
      this.promptInputs.lastCheck = run;
      for (const line of checkLines(run, config.verbose)) this.say(line);
    }
    const verdictOfIteration = iterationVerdict(said, run, config);
    if (verdictOfIteration.say) this.say(verdictOfIteration.say);
    if (verdictOfIteration.done) {
      // The work passed: a guard that cut this turn short no longer stands (it was said when it tripped).
      this.tripped = null;
      return this.done();
    }
    if (verdictOfIteration.feedback) this.promptInputs.feedback.push(verdictOfIteration.feedback);
    const moved = verdictOfIteration.checkPassed ? config.models.passed() : config.models.failed();
    if (moved) this.say(moved);
    return this.goOn(turn, sessionId, run);
  }

  /** The iteration's raw events beside the session; the first one written says where they are. */
  private async writeLog(recorder: SessionRecorder, turn: Turn): Promise<string | null> {
    const log = await writeIterationLog(recorder.files, turn).catch((error: unknown) => {
      this.warn(`could not write the iteration's log: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
    if (log && !this.logsShown) {
      this.logsShown = true;
      this.say(`  iteration logs (raw NDJSON per turn): ${recorder.files.iterations}`);
    }
    return log;
  }

  /** The iteration says the work is done: the loop ends, or the verifier checks it first. */
  private done(): boolean {
    if (!this.config.verifyPrompt) {
      this.reason = { kind: "passed", how: this.doneBy() };
      return false;
    }
    // No budget goes past its end for a verifier: a spent one stops the loop unverified.
    const spent = this.budget.spent(0, this.outcome().costUsd);
    if (spent) {
      this.reason = { kind: "budget", message: `${spent}, before the verifier could check the work` };
      return false;
    }
    this.phase = { kind: "idle", next: { kind: "verifier" } };
    return true;
  }

  /** The verifier has answered: done, or its reason goes to the next iteration. */
  private async afterVerifier(verdict: ReturnType<typeof readVerdict>, turn: Turn): Promise<boolean> {
    if (verdict?.pass) {
      this.say("✓ verifier: <verify-pass/>");
      this.reason = { kind: "passed", how: `${this.doneBy()}, and the verifier agreed` };
      return false;
    }
    const why = verdict?.reason ?? null;
    this.warn(verifierFailWarning(why));
    this.promptInputs.feedback.push(verifierFeedback(why));
    const moved = this.config.models.passed();
    if (moved) this.say(moved);
    // The verifier changes nothing by design: its turn is no sign of a loop that stopped moving.
    return this.goOn(turn, this.iterations.at(-1)!.sessionId, null, false);
  }

  /** What made the loop done, for its last line. */
  private doneBy(): string {
    const promise = this.config.promise !== null ? `claude said <promise>${this.config.promise}</promise>` : null;
    const check = this.config.check !== null ? "the check passed" : null;
    return [promise, check].filter((x) => x !== null).join(" and ");
  }

  /** Not done: stop on Ctrl-C or a spent budget, pause on a guard, or go on to the next iteration. */
  private async goOn(turn: Turn, sessionId: string, run: CheckRun | null, guarded = true): Promise<boolean> {
    if (this.stopAsked.afterTurn) {
      this.reason ??= { kind: "user", message: "Ctrl-C" };
      return false;
    }
    const spent = this.budget.spent(this.iteration.n, this.outcome().costUsd);
    if (spent) {
      this.reason = { kind: "budget", message: spent };
      return false;
    }
    const found = guarded ? this.guards.iteration(turn, run) : null;
    const trip = this.tripped ?? found;
    this.tripped = null;
    return trip ? this.pause(trip, turn, sessionId) : true;
  }

  /** A guard tripped: on a terminal, ask; otherwise stop. */
  private async pause(trip: Trip, turn: Turn, sessionId: string): Promise<boolean> {
    this.warn(`guard: ${trip.message} (${trip.flag})`);
    const io = this.io;
    if (io?.user.hasQueued?.()) {
      this.say("the line you typed goes next: the loop goes on");
      this.guards.reset(trip.guard);
      return true;
    }
    if (!io?.tty) {
      this.reason = { kind: "guard", trip };
      return false;
    }
    const { question, rewindTo } = pauseQuestion(this.iterations, sessionId, turn.n);
    this.say(question);
    this.phase = { kind: "pause" };
    const answer = (await io.user.next())?.trim().toLowerCase() ?? null;
    this.phase = IDLE;
    if (answer === null) {
      this.reason ??= { kind: "guard", trip };
      return false;
    }
    if (answer.startsWith("c")) {
      this.guards.reset(trip.guard);
      return true;
    }
    if (rewindTo !== null && answer.startsWith("r")) {
      // The conversation's own /rewind: code and claude's memory go back, the plan is shown first.
      this.phase = { kind: "idle", next: { kind: "rewind", turn: rewindTo } };
      this.claude.forget();
      this.reason = { kind: "rewound", turn: rewindTo, trip };
      return true;
    }
    this.reason = { kind: "guard", trip };
    return false;
  }

  /** Claude's tool calls, on their way to the screen: a call repeated too often cuts the turn short. */
  private observe(event: StreamEvent): void {
    const phase = this.phase;
    if (phase.kind !== "turn") return;
    if (event.type === "result") phase.apiFailure = unfixableApiFailure(event);
    this.said.see(event);
    if (event.type !== "assistant" || phase.role === "verifier") return; // the verifier's calls are not the loop's work
    for (const block of event.message.content) {
      if (!isToolUse(block)) continue;
      const trip = this.guards.toolCall(block.id, block.name, block.input);
      if (trip && !this.tripped) {
        this.tripped = trip;
        this.warn(`guard: ${trip.message} (${trip.flag}); interrupting the turn`);
        this.claude.interrupt();
      }
    }
  }

  private outOfTime(minutes: number): void {
    this.stopAsked.timeUp = true;
    this.reason ??= { kind: "budget", message: `${timeSpent(minutes)} passed (--max-minutes ${minutes})` };
    if (this.phase.kind === "turn") {
      this.warn(`the loop's time is up (--max-minutes ${minutes}): interrupting the turn`);
      this.claude.interrupt();
    } else if (this.phase.kind === "check") this.phase.abort?.abort();
  }

  private say(text: string): void {
    this.io?.screen.say(text);
  }

  private warn(text: string): void {
    this.io?.screen.warn(text);
  }
}
