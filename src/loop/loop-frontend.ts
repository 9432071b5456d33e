/**
 * The frontend a loop hands the session, built on the run's own: the loop's prompts in place of
 * the user's, claude's events seen on their way to the screen, and a /rewind chosen at a pause
 * that does not happen turned back into a stop on the guard.
 */
import type { StreamEvent } from "../claude/stream-events.js";
import type { Frontend, PromptSource } from "../live/frontend.js";

export interface LoopSide {
  next(): Promise<string | null>;
  /** The run's input closed: the loop stops. */
  close(): void;
  observe(event: StreamEvent): void;
  /** The /rewind the user chose was declined at its confirmation, or refused (a file in the way). */
  notRewound(): void;
}

export function loopFrontend(base: Frontend, loop: LoopSide): Frontend {
  const prompts: PromptSource = {
    next: () => loop.next(),
    // Never "queued": after the check ran, what is in the work tree that is not claude's (the
    // check's own output, the user's edits) must be captured before the next turn.
    hasQueued: () => false,
    close: () => loop.close(),
  };
  const render = (event: StreamEvent) => {
    loop.observe(event);
    base.render(event);
  };
  const confirm = async (plan: string[], question: string) => {
    const yes = await base.confirm(plan, question);
    if (!yes) loop.notRewound();
    return yes;
  };
  const error = (message: string, hint?: string) => {
    loop.notRewound();
    base.error(message, hint);
  };
  return { ...base, prompts, render, confirm, error };
}
