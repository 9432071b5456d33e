/**
 * How an iteration ended, decided from what claude said and what the check found (a pure
 * function: the driver applies it). The rules: a promise is kept only when the check
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

export function saidPromise(text: string, endings: Endings): SaidPromise {
  const sigils = readSigils(text);
  const gaveUp = sigils.promises.includes(endings.failPromise)
    ? { promise: endings.failPromise, reason: reasonFrom(text) }
    : null;
  const kept =
    !gaveUp && endings.promise !== null && sigils.promises.includes(endings.promise) ? endings.promise : null;
  return {
    gaveUp,
    kept,
    recorded: gaveUp?.promise ?? kept ?? sigils.promises.at(-1) ?? null,
    nextModel: sigils.nextModel,
  };
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

export function iterationVerdict(said: SaidPromise, run: CheckRun | null, endings: Endings): IterationVerdict {
  const checkPassed = run === null || run.exitCode === 0;
  const promised = endings.promise === null || said.kept !== null;
  const say =
    said.kept === null
      ? null
      : `${checkPassed ? "✓" : "✗"} claude says <promise>${said.kept}</promise>${checkPassed ? "" : ", but the check fails: not trusted, the loop goes on"}`;
  let feedback: string | null = null;
  if (said.kept !== null && run && !checkPassed) {
    feedback = `[nudge loop] You said <promise>${said.kept}</promise>, but the check \`${run.command}\` still fails (exit status ${run.exitCode ?? "timeout"}), so the task is not done. Do not say it until the check passes.`;
  } else if (endings.promise !== null && run && checkPassed && said.kept === null) {
    feedback = `[nudge loop] The check passes, but your last message did not say <promise>${endings.promise}</promise>; say it when the whole task is done.`;
  }
  return { done: checkPassed && promised, checkPassed: run !== null && checkPassed, say, feedback };
}
