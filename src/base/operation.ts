/**
 * One shape for every change nudge asks a person about (rewind, undo, fork, export, rm, gc): a
 * plan computed from the current state, shown as lines with a question, then applied. Each
 * frontend asks its own way (the CLI's y/N or --yes, the page's confirm token, a live session's
 * frontend); all of them keep one rule: an answer holds only for the plan it was given about, so
 * the plan is prepared again after it and applied only if its fingerprint is the same.
 */
import { UserError } from "./errors.js";

export interface Operation<P, R> {
  /** Computes the plan from the state as it is now (under whatever lock the caller holds). */
  prepare(): Promise<P>;
  /** The plan as lines for a person: what --dry-run prints, what the page shows. */
  describe(plan: P): string[];
  question(plan: P): string;
  /** False: nothing of the user's is at stake, so no one needs asking (the page asks all the same). */
  asks?(plan: P): boolean;
  /** A value that changes whenever what the plan was computed from changes (compared as JSON). */
  fingerprint(plan: P): unknown;
  apply(plan: P): Promise<R>;
  /** What the fingerprint watches, as the refusal names it: "the work tree" unless said. */
  watches?: string;
}

export function fingerprintOf<P>(op: Operation<P, unknown>, plan: P): string {
  return JSON.stringify(op.fingerprint(plan)) ?? "";
}

/** What a person answered was about another state: refused, nothing done. `again`: the command to run again ("rewind", "/undo"). */
function changedWhileAsking(watches: string, again: string): UserError {
  return new UserError(
    `${watches} changed while waiting for your answer; nothing was changed`,
    `run the ${again} again to see the new plan`,
  );
}

/**
 * After a person answered: the plan prepared again, to apply, when its fingerprint is the one
 * they were shown; otherwise refused with `changedWhileAsking`.
 */
export async function stillHolds<P>(op: Operation<P, unknown>, shown: P, again: string): Promise<P> {
  const fresh = await op.prepare();
  if (fingerprintOf(op, fresh) !== fingerprintOf(op, shown))
    throw changedWhileAsking(op.watches ?? "the work tree", again);
  return fresh;
}
