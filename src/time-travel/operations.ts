/**
 * Rewind, undo and fork as operations (see ../operation.ts): the plan, its words, its
 * fingerprint and its apply, defined once for the CLI, the page and a live session alike. The
 * caller holds the work tree's lock around prepare and apply (`withWorkTree`, `withUndo`).
 */
import type { Store, StoredSession } from "../store/store.js";
import type { Operation } from "../base/operation.js";
import {
  applyForkInPlace,
  forkIntoWorktree,
  planForkIntoWorktree,
  prepareForkInPlace,
  type ForkOutcome,
} from "./fork-session.js";
import { describeWorktreeFork } from "./fork-describe.js";
import {
  applyRewind,
  prepareRewind,
  prepareUndo,
  undoLastRewind,
  type PreparedRewind,
  type PreparedUndo,
  type RewindOptions,
} from "./rewind.js";
import type { RewindRecord } from "./rewind-log.js";
import { describePlan, describeUndo } from "./rewind-plan.js";

export function rewindOperation(
  store: Store,
  session: StoredSession,
  turn: number,
  o: RewindOptions,
): Operation<PreparedRewind, RewindRecord> {
  return {
    prepare: () => prepareRewind(store, session, turn, o),
    describe: (p) => describePlan(p.plan),
    question: (p) => `rewind ${p.plan.sessionId} to turn ${p.plan.turn}?`,
    // The plan holds the captured work tree, HEAD and branch, and what it does to them.
    fingerprint: (p) => p.plan,
    apply: (p) => applyRewind(store, session, p),
  };
}

export type UndoOutcome = Awaited<ReturnType<typeof undoLastRewind>>;

export function undoOperation(store: Store, o: { from?: string } = {}): Operation<PreparedUndo, UndoOutcome> {
  return {
    prepare: () => prepareUndo(store, o),
    describe: (p) => describeUndo(p.plan),
    question: ({ plan: { undo } }) =>
      `undo the ${undo.fork ? "fork" : "rewind"} of ${undo.sessionId} to turn ${undo.turn}?`,
    fingerprint: (p) => ({ record: p.plan.undo.stamp, tree: p.state.tree }),
    apply: (p) => undoLastRewind(store, p),
  };
}

/** A fork whose code goes in place: a code rewind, asked about only when it changes files. */
export function forkInPlaceOperation(
  store: Store,
  source: StoredSession,
  turn: number,
  o: { from?: string } = {},
): Operation<PreparedRewind, ForkOutcome> {
  return {
    prepare: () => prepareForkInPlace(store, source, turn, o),
    describe: (p) => describePlan(p.plan, "fork"),
    question: () => `fork ${source.manifest.id} at turn ${turn} and put its code in place?`,
    asks: (p) => p.changes.length > 0,
    fingerprint: (p) => p.plan,
    apply: (p) => applyForkInPlace(store, source, p),
  };
}

type WorktreePlan = Awaited<ReturnType<typeof planForkIntoWorktree>>;

/** A fork into a new worktree touches nothing of the user's: nothing to ask (the page asks all the same). */
export function forkIntoWorktreeOperation(
  store: Store,
  source: StoredSession,
  turn: number,
  dir: string,
): Operation<WorktreePlan, ForkOutcome> {
  return {
    prepare: () => planForkIntoWorktree(source, turn, dir),
    describe: (p) => describeWorktreeFork(source.manifest.id, turn, p),
    question: (p) => `fork ${source.manifest.id} at turn ${turn} into ${p.root}?`,
    asks: () => false,
    fingerprint: (p) => p,
    apply: () => forkIntoWorktree(store, source, turn, dir),
  };
}
