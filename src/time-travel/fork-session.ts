/**
 * `nudge session fork`: a fork's bundle plus its code — written into a new worktree, or put in
 * place as an undoable code rewind (planned, shown and confirmed like any rewind). Also the
 * automatic fork that continues a rewound session.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { sessionLock } from "../store/locks.js";
import {
  bundleFiles,
  readHeader,
  requireOwnRepository,
  updateHeader,
  type Store,
  type StoredSession,
} from "../store/store.js";
import { turnOf } from "../store/turn-lookup.js";
import * as git from "../snapshot/git.js";
import { beginWork, clearCutOffWork } from "../store/cut-off-work.js";
import { faultPoint } from "../base/fault-injection.js";
import { UserError } from "../base/errors.js";
import { plainMessage } from "../base/system-problem.js";
import { requireTree } from "../snapshot/snapshotter.js";
import { forkBundle, planWorktreeFork, type ForkResult } from "./fork.js";
import { saveRecord, type RewindRecord } from "./rewind-log.js";
import { applyRewind, captureWorkTree, prepareRewind, withWorkTree, type PreparedRewind } from "./rewind.js";
import { plannedSwitch, switchVerified } from "./work-tree-switch.js";

export interface ForkOutcome extends ForkResult {
  turn: number;
  /** Where the fork's code is: the worktree's path, or the repository's own. */
  codeAt: string;
  rewind: RewindRecord | null;
}

/** The turn a fork starts from: the one named, or the session's last. */
export function forkTurn(source: StoredSession, turnNumber: number | undefined): number {
  return turnOf(source.manifest, turnNumber ?? source.manifest.turns.at(-1)!.n).n;
}

/**
 * Where a fork into a new worktree goes, checked, with nothing made (its --dry-run). Damage is
 * found here, before anything is made: no worktree, no half-registered fork.
 */
export async function planForkIntoWorktree(
  source: StoredSession,
  turn: number,
  dir: string,
): Promise<{ root: string; cwd: string; commit: string }> {
  const target = turnOf(source.manifest, turn);
  await requireTree(
    source.manifest.repo.root,
    target.snapshot.tree,
    `turn ${turn}'s snapshot of session ${source.manifest.id}`,
  );
  return planWorktreeFork(source, turn, dir);
}

/** A fork into a new worktree at the HEAD recorded with the turn: nothing of the user's is touched, so nothing needs asking. */
export async function forkIntoWorktree(
  store: Store,
  source: StoredSession,
  turn: number,
  dir: string,
): Promise<ForkOutcome> {
  await requireOwnRepository(store, source.manifest);
  const target = turnOf(source.manifest, turn);
  await clearCutOffWork(store, "fork"); // a killed fork's worktree may stand where this one goes
  const wt = await planForkIntoWorktree(source, turn, dir);
  // Journalled (cut-off-work.ts): a fork killed halfway leaves no locked, half-checked-out worktree
  // and no half-made session; the next `fork --worktree` or `nudge session gc` removes them.
  const work = await beginWork(store, "fork", `a fork of session ${source.manifest.id} into ${wt.root}`);
  try {
    // git's admin folders before the add: a kill inside it may leave one git cannot read, found by this list.
    const admin = await fs.readdir(path.join(store.commonDir, "worktrees")).catch(() => [] as string[]);
    await work.will({ kind: "worktree", path: wt.root, admin });
    await git.addWorktree(source.manifest.repo.root, wt.root, wt.commit);
    faultPoint("fork-worktree-added");
    const outcome = await withWorkTree(store, wt.root, `forking session ${source.manifest.id} into it`, async () => {
      const state = await captureWorkTree(store, wt.root);
      const changes = await plannedSwitch(wt.root, state.tree, target.snapshot.tree, `turn ${turn}`);
      await switchVerified(state, { from: state.tree, to: target.snapshot.tree, what: `turn ${turn}`, changes });
      const fork = await forkBundle(
        store,
        source,
        turn,
        { root: wt.root, cwd: wt.cwd, branch: null, worktree: path.basename(wt.root) },
        work,
      );
      return { ...fork, turn, codeAt: wt.root, rewind: null };
    });
    await work.finish();
    return outcome;
  } catch (error) {
    await work.rollBack().catch(() => undefined);
    await work.finish();
    throw error;
  }
}

/** A fork whose code goes in place is a code rewind first: its plan (under the work tree's lock, see `withWorkTree`). */
export function prepareForkInPlace(
  store: Store,
  source: StoredSession,
  turn: number,
  o: { from?: string } = {},
): Promise<PreparedRewind> {
  return prepareRewind(store, source, turn, { scope: "code", resetHead: false, from: o.from, needsCommit: true });
}

export async function applyForkInPlace(
  store: Store,
  source: StoredSession,
  prepared: PreparedRewind,
): Promise<ForkOutcome> {
  const turn = prepared.plan.turn;
  // The files are switched once the fork's folder is made (a fork that cannot even begin changes
  // nothing) while its session is built, which is put in place once they are.
  let rewinding: Promise<RewindRecord | null> = Promise.resolve(null);
  const switchFiles = () => {
    if (prepared.changes.length > 0) rewinding = applyRewind(store, source, prepared, { forking: true });
    rewinding.catch(() => undefined); // awaited below, whatever becomes of the fork meanwhile
    return rewinding;
  };
  const fork = await forkBundle(store, source, turn, source.manifest.repo, undefined, switchFiles).catch(
    async (error: unknown) => {
      // Never left running: its failure is the one to tell, and the lock is released after it.
      const applied = await rewinding;
      if (!applied) throw error;
      // The files were switched, and the fork could not be made: that rewind is done (--undo puts it back), and said so.
      await saveRecord(store, applied);
      throw new UserError(
        `the files are at turn ${turn} of ${source.manifest.id}, but its fork could not be made: ${plainMessage(error)}`,
        "put the files back with: nudge session rewind --undo (or fork again once the cause is fixed)",
      );
    },
  );
  const applied = await rewinding;
  // The record names the fork, so that its undo can say so and leave the fork behind.
  const rewind = applied && { ...applied, fork: fork.manifest.id };
  if (rewind) await saveRecord(store, rewind);
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
