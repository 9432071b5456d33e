/**
 * What a frontend's run needs to let an agentic loop drive it (the terminal's liveRun takes one):
 * the loop wraps the frontend (its prompts, and a look at claude's events), sees the conversation
 * (to cut a turn short), checks after every turn, and takes Ctrl-C before the run does.
 */
import type { Conversation } from "../live/conversation.js";
import type { Frontend } from "../live/frontend.js";
import type { RunSessionInput } from "../live/run-session.js";

export interface LoopHooks {
  /** The frontend the session gets, built on the run's own (`tty`: someone can be asked). */
  frontend(base: Frontend, tty: boolean): Frontend;
  attach(conversation: Conversation): void;
  afterTurn: NonNullable<RunSessionInput["afterTurn"]>;
  /** Ctrl-C: a line to show when the loop handled it; null for the run's usual handling. */
  sigint(): string | null;
}
