/**
 * Rewind a session to turn N: plan, back up, switch the work tree, verify, roll back on mismatch;
 * and undo the last rewind. The user's HEAD, branch and index are touched only with --reset-head.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { promises as fs } from "node:fs";
import { UserError, errorMessage } from "../errors.js";
import { copyFileAtomic, ensureDir } from "../bundle/atomic-write.js";
import { bundleDir, liveClaudes, updateHeader, type Store, type StoredSession } from "../bundle/store.js";
import { lockWorkTree } from "../bundle/work-tree-lock.js";
import * as git from "../snapshot/git.js";
import { ownPathExcludes } from "../snapshot/own-paths.js";
import { PrivateIndex } from "../snapshot/private-index.js";
import { requireTree } from "../snapshot/snapshotter.js";
import { planRewind, planUndo, type RewindPlan, type RewindScope, type UndoPlan } from "./rewind-plan.js";
import { keepBackup, lastRewind, newStamp, rewindsDir, saveRecord, type RewindRecord } from "./rewind-log.js";
import { refuseIfInTheWay, switchVerified } from "./work-tree-switch.js";

/** One private index per work tree for rewinds and undos, re-seeded from the user's at each capture. */
function worktreeIndex(store: Store, root: string): string {
  return path.join(store.dir, "index", `worktree-${createHash("sha1").update(root).digest("hex").slice(0, 12)}`);
}

export interface WorkTreeState {
  root: string;
  indexFile: string;
  exclude: string[];
  tree: string;
  head: string | null;
  branch: string | null;
}

/** The work tree as a tree id (tracked, untracked, not ignored), plus HEAD and branch. */
export async function captureWorkTree(store: Store, root: string): Promise<WorkTreeState> {
  const indexFile = worktreeIndex(store, root);
  const exclude = ownPathExcludes(root, store.ownDirs);
  const index = new PrivateIndex({ root, indexFile, exclude, untrackedCache: false });
  const [tree, head, branch] = await Promise.all([index.capture().then((c) => c.tree), git.headCommit(root), git.currentBranch(root)]);
  return { root, indexFile, exclude, tree, head, branch };
}

export interface RewindOptions {
  scope: RewindScope;
  resetHead: boolean;
  /** The caller holds the session's lock itself (an in-session /rewind). */
  ownLock?: boolean;
}

/**
 * A live recording in the work tree has a claude that may be writing files right now: rewriting
 * them under it would be recorded as its work, or undone by it. `except`: the caller's own session.
 */
export async function refuseIfRecordingIn(store: Store, root: string, except?: string): Promise<void> {
  const live = (await liveClaudes(store)).find((s) => s.root === root && s.id !== except);
  if (!live) return;
  if (live.orphanPid === null) {
    throw new UserError(`session ${live.id} is being recorded by another nudge process in ${root}`, "use /rewind or /fork inside that session, or quit it first");
  }
  // A claude whose nudge died is the same risk: it may write files any moment.
  throw new UserError(
    `the claude of crashed session ${live.id} is still running (pid ${live.orphanPid}) and may change files in ${root}`,
    `stop it (kill ${live.orphanPid}), or recover the session, which stops it first: nudge claude run -r ${live.id}`,
  );
}

/**
 * A session's code lives in the work tree it was recorded in. Run from another one (a linked
 * worktree, a copy of the repository), a rewind would rewrite files far from where the user is.
 */
export function refuseElsewhere(store: Store, root: string, what: string): void {
  if (store.repoRoot === root) return;
  throw new UserError(
    `${what} was recorded in ${root}, not in this work tree (${store.repoRoot})`,
    `run the command there (cd ${root}), or fork it into a new worktree: nudge session fork <id> [turn] --worktree <path>`,
  );
}

/** A plan with what it was computed from: the captured work tree and the delta to the target. */
export interface PreparedRewind {
  plan: RewindPlan;
  state: WorkTreeState;
  changes: git.TreeChange[];
}

export async function prepareRewind(store: Store, session: StoredSession, turn: number, o: RewindOptions): Promise<PreparedRewind> {
  const root = session.manifest.repo.root;
  if (!o.ownLock) refuseElsewhere(store, root, `session ${session.manifest.id}`);
  await refuseIfRecordingIn(store, root, o.ownLock ? session.manifest.id : undefined);
  const target = session.manifest.turns[turn];
  if (target) await requireTree(root, target.snapshot.tree, `turn ${turn}'s snapshot of session ${session.manifest.id}`);
  const state = await captureWorkTree(store, root);
  const changes = target ? await git.changedPaths(root, state.tree, target.snapshot.tree) : [];
  const plan = planRewind({
    manifest: session.manifest,
    turn,
    scope: o.scope,
    resetHead: o.resetHead,
    current: { tree: state.tree, head: state.head, branch: state.branch },
    changes,
  });
  return { plan, state, changes };
}

/**
 * Carry out a plan. The record is written before the work tree changes, so even a crash midway
 * leaves `--undo` able to restore the state from before.
 */
export async function applyRewind(
  store: Store,
  session: StoredSession,
  prepared: PreparedRewind,
  o: { ownLock?: boolean } = {},
): Promise<RewindRecord> {
  // Hold the work tree while it changes: no recording, rewind or undo can start on it halfway through.
  const lock = o.ownLock ? null : await lockWorkTree(store, session.manifest.repo.root, { what: `rewinding session ${session.manifest.id}`, waitMs: 5_000 });
  try {
    return await applyLocked(store, session, prepared);
  } finally {
    await lock?.release();
  }
}

async function applyLocked(store: Store, session: StoredSession, { plan, state, changes }: PreparedRewind): Promise<RewindRecord> {
  const root = state.root;
  const stamp = newStamp();
  const backupRef = `refs/nudge/backup/${stamp}`;
  const withCode = plan.scope !== "conversation";
  // Refuse before anything is written; the check and the backup commit are independent.
  const delta = withCode ? changes : [];
  const [, backupCommit] = await Promise.all([
    refuseIfInTheWay(root, delta, `turn ${plan.turn}`),
    // Parent = HEAD now, so commits made after the rewind point stay reachable from the backup.
    git.commitTree(root, state.tree, state.head ? [state.head] : [], `nudge backup before rewinding ${plan.sessionId} to turn ${plan.turn}`),
  ]);
  let indexCopy: string | null = null;
  if (plan.head.reset) {
    const userIndex = await git.indexPath(root);
    // Git would refuse to reset the index half way through; find out before any file changes.
    if (await fs.stat(`${userIndex}.lock`).catch(() => null)) {
      throw new UserError(`another git process is working in ${root} (its index is locked); nothing was changed`, "wait for it to finish, then run the rewind again");
    }
    indexCopy = path.join(rewindsDir(store), `${stamp}.index`);
    await ensureDir(rewindsDir(store));
    await copyFileAtomic(userIndex, indexCopy);
  }
  const record: RewindRecord = {
    stamp,
    at: new Date().toISOString(),
    sessionId: plan.sessionId,
    turn: plan.turn,
    root,
    scope: plan.scope,
    backup: { commit: backupCommit, tree: state.tree, ref: backupRef },
    before: { head: state.head, branch: state.branch, rewoundTo: session.manifest.rewoundTo, indexCopy },
    after: { tree: withCode ? plan.target.tree : state.tree, head: plan.head.reset ? plan.head.recorded : state.head },
    status: "applied",
  };
  // The record and the backup ref exist before the work tree changes: a crash midway can be undone.
  await Promise.all([git.updateRefs(root, [{ ref: backupRef, commit: backupCommit }]), saveRecord(store, record)]);

  if (withCode) {
    try {
      await switchVerified(state, state.tree, plan.target.tree, `turn ${plan.turn}`, delta);
    } catch (error) {
      await saveRecord(store, { ...record, status: "failed" }); // nothing for --undo to undo
      throw error;
    }
  }
  if (plan.head.reset) {
    try {
      await git.moveRef(root, state.branch ? `refs/heads/${state.branch}` : "HEAD", plan.head.recorded!, plan.head.current ?? git.NO_REF);
      await git.resetIndexTo(root, plan.head.recorded!);
    } catch (error) {
      throw new UserError(
        `the files are at turn ${plan.turn}, but moving HEAD and the index back failed: ${errorMessage(error)}`,
        "put everything back as it was with: nudge session rewind --undo",
      );
    }
  }
  if (plan.scope !== "code") await updateHeader(session.dir, { rewoundTo: plan.turn });
  return record;
}

/** An undo's plan with the captured work tree it was computed from. */
export interface PreparedUndo {
  plan: UndoPlan;
  state: WorkTreeState;
}

export async function prepareUndo(store: Store, o: { ownLock?: boolean } = {}): Promise<PreparedUndo> {
  const record = await lastRewind(store);
  if (!record) throw new UserError("there is no rewind to undo", "nudge session list shows the sessions; rewind one first");
  refuseElsewhere(store, record.root, `the last rewind (of session ${record.sessionId})`);
  if (!o.ownLock) await refuseIfRecordingIn(store, record.root);
  const state = await captureWorkTree(store, record.root);
  const changes = await git.changedPaths(record.root, state.tree, record.backup.tree);
  return { plan: planUndo(record, state, changes), state };
}

/** Put back exactly what the last rewind changed: files, HEAD and index, and the session's fork point. */
export async function undoLastRewind(store: Store, { plan, state }: PreparedUndo, o: { ownLock?: boolean } = {}): Promise<{ record: RewindRecord; savedEdits: string | null }> {
  const record = plan.undo;
  const lock = o.ownLock ? null : await lockWorkTree(store, record.root, { what: "undoing a rewind", waitMs: 5_000 });
  try {
    return await undoLocked(store, plan, state);
  } finally {
    await lock?.release();
  }
}

async function undoLocked(store: Store, plan: UndoPlan, state: WorkTreeState): Promise<{ record: RewindRecord; savedEdits: string | null }> {
  const record = plan.undo;
  const root = record.root;
  let savedEdits: string | null = null;
  if (plan.keepsEdits) {
    // Edits made after the rewind would be overwritten by the undo: keep them under a ref too.
    savedEdits = await keepBackup(root, state.tree, state.head, "nudge backup before undoing a rewind", "before-undo");
  }
  await switchVerified(state, state.tree, record.backup.tree, "the state before the rewind");
  if (plan.head) {
    await git.moveRef(root, plan.head.branch ? `refs/heads/${plan.head.branch}` : "HEAD", plan.head.to, plan.head.from ?? git.NO_REF);
    await copyFileAtomic(record.before.indexCopy!, await git.indexPath(root));
  }
  if (record.scope !== "code") await updateHeader(bundleDir(store, record.sessionId), { rewoundTo: record.before.rewoundTo });
  await saveRecord(store, { ...record, status: "undone" });
  return { record, savedEdits };
}
