/**
 * `nudge session fork`: a fork's bundle plus its code — written into a new worktree, or put in
 * place as an undoable code rewind. Also the automatic fork that continues a rewound session.
 */
import type { Store, StoredSession } from "../bundle/store.js";
import { bundleFiles, readHeader, updateHeader } from "../bundle/store.js";
import { sessionLock } from "../bundle/locks.js";
import { forkBundle, worktreeForFork, type ForkResult } from "./fork.js";
import { applyRewind, captureWorkTree, prepareRewind, type PreparedRewind } from "./rewind.js";
import * as git from "../snapshot/git.js";
import { switchVerified } from "./work-tree-switch.js";
import type { RewindRecord } from "./rewind-log.js";
import { turnOf } from "../bundle/turn-lookup.js";

export interface ForkOutcome extends ForkResult {
  turn: number;
  /** Where the fork's code is: the worktree's path, or the repository's own. */
  codeAt: string;
  rewind: RewindRecord | null;
}

export async function forkSession(
  store: Store,
  source: StoredSession,
  turnNumber: number | undefined,
  o: { worktree?: string; ownLock?: boolean } = {},
): Promise<ForkOutcome> {
  const turn = turnNumber ?? source.manifest.turns.length - 1;
  const target = turnOf(source.manifest, turn);
  if (o.worktree) {
    const wt = await worktreeForFork(source, turn, o.worktree);
    try {
      const state = await captureWorkTree(store, wt.root);
      await switchVerified(state, state.tree, target.snapshot.tree, `turn ${turn}`);
      const fork = await forkBundle(store, source, turn, { root: wt.root, cwd: wt.cwd, branch: null });
      return { ...fork, turn, codeAt: wt.root, rewind: null };
    } catch (error) {
      await git.removeWorktree(source.manifest.repo.root, wt.root).catch(() => undefined);
      throw error;
    }
  }
  return applyForkInPlace(store, source, await prepareForkInPlace(store, source, turn, o), o);
}

/** A fork whose code goes in place is a code rewind first: its plan (what it writes, deletes, backs up). */
export function prepareForkInPlace(store: Store, source: StoredSession, turn: number, o: { ownLock?: boolean } = {}): Promise<PreparedRewind> {
  return prepareRewind(store, source, turn, { scope: "code", resetHead: false, ownLock: o.ownLock });
}

export async function applyForkInPlace(store: Store, source: StoredSession, prepared: PreparedRewind, o: { ownLock?: boolean } = {}): Promise<ForkOutcome> {
  const turn = prepared.plan.turn;
  const rewind = prepared.changes.length > 0 ? await applyRewind(store, source, prepared, { ownLock: o.ownLock }) : null;
  const fork = await forkBundle(store, source, turn);
  return { ...fork, turn, codeAt: source.manifest.repo.root, rewind };
}

/**
 * `claude run -r` on a rewound session: continue in a fork at the rewind point, keeping the later
 * turns. Decided under the session's lock, so two runs started at once make one fork, not two;
 * null when another run already made it.
 */
export async function continueRewound(store: Store, source: StoredSession): Promise<ForkResult | null> {
  const lock = await sessionLock(bundleFiles(source.dir).lock, source.manifest.id);
  try {
    const header = await readHeader(source.dir);
    if (header.rewoundTo === null) return null;
    const fork = await forkBundle(store, source, header.rewoundTo);
    await updateHeader(source.dir, { rewoundTo: null });
    return fork;
  } finally {
    await lock.release();
  }
}
