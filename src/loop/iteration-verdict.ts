/**
 * How an iteration ended, decided from what claude said and what the check found (a pure
 * function: the driver applies it). The rules of issue 20: a promise is kept only when the check
 * (if there is one) agrees; a promise the check refutes is told to claude, never trusted; the
 * --fail-promise ends the loop whatever the check says.
 */
import type { CheckRun } from "./check-run.js";
import { readSigils, reasonFrom } from "./sigils.js";

export interface Endings {
  /** --until-promise; null: the check alone decides. */
  promise: string | null;
  failPromise: string;
}

export interface SaidPromise {
  /** claude gave up: the --fail-promise, and the rest of its message as the reason. */
  gaveUp: { promise: string; reason: string } | null;
  /** The --until-promise, when claude said it. */
  kept: string | null;
  /** What the turn records: the promise that counted, else any other claude made. */
  recorded: string | null;
  nextModel: string | null;
}

export function saidPromise(text: string, e: Endings): SaidPromise {
  const sigils = readSigils(text);
  const gaveUp = sigils.promises.includes(e.failPromise) ? { promise: e.failPromise, reason: reasonFrom(text) } : null;
  const kept = !gaveUp && e.promise !== null && sigils.promises.includes(e.promise) ? e.promise : null;
  return { gaveUp, kept, recorded: gaveUp?.promise ?? kept ?? sigils.promises.at(-1) ?? null, nextModel: sigils.nextModel };
}

export interface IterationVerdict {
  /** The iteration met every ending asked for (the verifier, if any, is next). */
  done: boolean;
  /** The check ran and passed (a pass, for --model-strategy). */
  checkPassed: boolean;
  /** A line for the terminal about the promise, if claude made one. */
  say: string | null;
  /** What the next prompt tells claude, if anything. */
  feedback: string | null;
}

export function iterationVerdict(said: SaidPromise, run: CheckRun | null, e: Endings): IterationVerdict {
  const checkPassed = run === null || run.exitCode === 0;
  const promised = e.promise === null || said.kept !== null;
  const say = said.kept === null ? null : `${checkPassed ? "✓" : "✗"} claude says <promise>${said.kept}</promise>${checkPassed ? "" : ", but the check fails: not trusted, the loop goes on"}`;
  let feedback: string | null = null;
  if (said.kept !== null && run && !checkPassed) {
    feedback = `[nudge loop] You said <promise>${said.kept}</promise>, but the check \`${run.command}\` still fails (exit status ${run.exitCode ?? "timeout"}), so the task is not done. Do not say it until the check passes.`;
  } else if (e.promise !== null && run && checkPassed && said.kept === null) {
    feedback = `[nudge loop] The check passes, but your last message did not say <promise>${e.promise}</promise>; say it when the whole task is done.`;
  }
  return { done: checkPassed && promised, checkPassed: run !== null && checkPassed, say, feedback };
}
