/**
 * Rewind a session to turn N: plan, back up, switch the work tree, verify, roll back on mismatch;
 * and undo the last rewind. Every step runs under the work tree's lock, taken by the caller before
 * the capture the plan is computed from (`withWorkTree`), and every switch is journaled first
 * (rewind-log.ts), so one cut off halfway is found and finished or rolled back (interrupted.ts).
 * The user's HEAD, branch and index are touched only with --reset-head.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { promises as fs } from "node:fs";
import { UserError, InternalError, errorMessage, isDiskFull } from "../base/errors.js";
import { copyFileAtomic, ensureDir } from "../store/atomic-write.js";
import type { Manifest, Turn } from "../store/manifest-schema.js";
import { bundleDir, liveClaudes, updateHeader, type Store, type StoredSession } from "../store/store.js";
import { fromClaudeUi, holdsWorkTree, lockWorkTree } from "../store/work-tree-lock.js";
import { turnOf } from "../store/turn-lookup.js";
import { faultPoint } from "../base/fault-injection.js";
import { pathExists } from "../base/file-exists.js";
import { randomHex } from "../base/random-hex.js";
import * as git from "../snapshot/git.js";
import { ownPathExcludes } from "../snapshot/own-paths.js";
import { PrivateIndex } from "../snapshot/private-index.js";
import { untrackedCacheVerdict } from "../snapshot/untracked-cache.js";
import { ignoredInTree } from "../snapshot/ignored-in-tree.js";
import { keptIgnoreFiles } from "../snapshot/kept-ignore-files.js";
import { objectsExistHere } from "../snapshot/loose-objects.js";
import { setNudgeRef } from "../snapshot/loose-writes.js";
import { BACKUP_REFS, requireTree, treeGone } from "../snapshot/snapshotter.js";
import {
  isSnapshotOf,
  planRewind,
  planUndo,
  type RewindPlan,
  type RewindScope,
  type SharedFiles,
  type UndoPlan,
} from "./rewind-plan.js";
import {
  backupCommit,
  interruptedIn,
  lastRewind,
  newStamp,
  operationName,
  operationPhrase,
  rewindsDir,
  saveRecord,
  thisProcess,
  type RewindRecord,
} from "./rewind-log.js";
import { restoreHidden, unhiddenFiles, type HiddenFile } from "./unhidden-files.js";
import { pathsInTheWay, submoduleSwaps, switchVerified } from "./work-tree-switch.js";

/** One private index per work tree for rewinds, undos and forks put in place, kept across processes (see `captureWorkTree`). */
function worktreeIndex(store: Store, root: string): string {
  return path.join(store.dir, "index", `worktree-${createHash("sha1").update(root).digest("hex").slice(0, 12)}`);
}

const indexes = new Map<string, PrivateIndex>();

export interface WorkTreeState {
  root: string;
  indexFile: string;
  exclude: string[];
  index: PrivateIndex;
  tree: string;
  head: string | null;
  branch: string | null;
  /** The ignore files outside the work tree (git.ignoreFiles), known without git in the store's own work tree. */
  ignoreFiles: () => Promise<string[]>;
}

/**
 * Run `work` holding the work tree's lock: every read a rewind plans from and every write it makes
 * happen under it, so two rewinds (or a rewind and a recording) can never interleave.
 */
export async function withWorkTree<T>(store: Store, root: string, what: string, work: () => Promise<T>): Promise<T> {
  const lock = await lockWorkTree(store, root, { what, waitMs: 5_000 });
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

/**
 * The work tree as a tree id (tracked, untracked, not ignored), plus HEAD and branch. The work
 * tree's private index is kept from one rewind to the next (even across processes: its state
 * file), with the untracked cache where it works and the split index, as between turns: a
 * capture is then one status scan, and nothing more when nothing changed since the last one.
 */
export async function captureWorkTree(store: Store, root: string): Promise<WorkTreeState> {
  if (!holdsWorkTree(store, root)) throw new InternalError(`the work tree ${root} is captured without its lock`);
  const { index, indexFile, exclude, ignoreFiles } = await keptIndex(store, root);
  const capture = await index.capture();
  // The scan says where HEAD is; a capture that had to start over (or a detached HEAD) asks git.
  const [head, branch] = await Promise.all([
    capture.head !== undefined ? capture.head : git.headCommit(root),
    capture.branch !== undefined ? capture.branch : git.currentBranch(root),
  ]);
  return {
    root,
    indexFile,
    exclude,
    index,
    tree: capture.tree,
    head,
    branch,
    ignoreFiles: ignoreFiles ?? (() => git.ignoreFiles(root)),
  };
}

/** The work tree's private index, kept in this process and across processes (made on first use). */
async function keptIndex(store: Store, root: string) {
  const indexFile = worktreeIndex(store, root);
  const exclude = ownPathExcludes(root, store.ownDirs);
  // In the store's own work tree, the config that names core.excludesFile is known; asked of git otherwise.
  const places = { commonDir: store.commonDir, gitDir: store.gitDir, noteFile: `${indexFile}.ignore-files` };
  const ignoreFiles = root === store.repoRoot ? () => keptIgnoreFiles(root, places) : undefined;
  let index = indexes.get(indexFile);
  if (!index) {
    const untrackedCache = await untrackedCacheVerdict(path.join(store.dir, "index"), root);
    indexes.set(
      indexFile,
      (index = new PrivateIndex({
        root,
        indexFile,
        exclude,
        untrackedCache,
        stateFile: `${indexFile}.state`,
        ignoreFiles,
      })),
    );
  }
  return { index, indexFile, exclude, ignoreFiles };
}

export interface RewindOptions {
  scope: RewindScope;
  resetHead: boolean;
  /** Rewind also the files of turns that shared the work tree with another recording (see `keepShared`). */
  includeShared?: boolean;
  /** The live session doing this itself (an in-session /rewind): its own recording is no obstacle. */
  from?: string;
  /** The target turn's snapshot commit must be there too, not only its tree (a fork's ref points at it). */
  needsCommit?: boolean;
}

/**
 * A claude that may be writing files right now (a recording with --force beside this one, or the
 * claude of a crashed session, still running): rewriting files under it would be recorded as its
 * work, or undone by it. `except`: the caller's own session.
 */
async function refuseIfClaudeRunsIn(store: Store, root: string, except?: string): Promise<void> {
  const live = (await liveClaudes(store)).find((s) => s.root === root && s.id !== except);
  if (!live) return;
  if (live.orphanPid === null && live.claudeUi) throw new UserError(...fromClaudeUi(live.id, root));
  if (live.orphanPid === null) {
    throw new UserError(
      `session ${live.id} is being recorded by another nudge process in ${root}`,
      "use /rewind, /fork or /undo inside that session, or quit it first",
    );
  }
  throw new UserError(
    `the claude of crashed session ${live.id} is still running (pid ${live.orphanPid}) and may change files in ${root}`,
    `stop it (kill ${live.orphanPid}), or recover the session, which stops it first: nudge claude run -r ${live.id}`,
  );
}

/** An operation on this work tree that was cut off halfway must be finished or rolled back before anything else. */
export async function refuseIfInterrupted(store: Store, root: string): Promise<void> {
  const record = await interruptedIn(store, root);
  if (!record) return;
  const { message, hint } = cutOff(record, ` (${record.at})`);
  throw new UserError(message, hint);
}

/** What an operation left halfway is (`when` after "halfway"), and how to settle it. */
export function cutOff(record: RewindRecord, when = ""): { message: string; hint: string } {
  const what = `${operationName(record) === "undo" ? "an" : "a"} ${operationPhrase(record)}`;
  return {
    message: `${what} was interrupted halfway${when}; some files are as before it, some as after`,
    hint: "finish it: nudge session rewind --continue, or put everything back as it was: nudge session rewind --abort (both show their plan with --dry-run)",
  };
}

/**
 * A session's code lives in the work tree it was recorded in. Run from another one (a linked
 * worktree, a copy of the repository), a rewind would rewrite files far from where the user is.
 */
function refuseElsewhere(store: Store, root: string, what: string): void {
  if (store.repoRoot === root) return;
  throw new UserError(
    `${what} was recorded in ${root}, not in this work tree (${store.repoRoot})`,
    `run the command there (cd ${root}), or fork it into a new worktree: nudge session fork <id> [turn] --worktree <path>`,
  );
}

/** A plan with what it was computed from: the captured work tree and the changes to the target. */
export interface PreparedRewind {
  plan: RewindPlan;
  state: WorkTreeState;
  /** From the captured tree to the target, as the switch applies them. */
  changes: git.TreeChange[];
  /** Deletions left on disk: those files were ignored at the target turn. */
  keepOnDisk: Set<string>;
  /** Deletions of files no tree holds (a later turn ignored them; see unhidden-files.ts): the record keeps them for --undo. */
  hidden: HiddenFile[];
}

/** Plan a rewind (under the work tree's lock, see `withWorkTree`); every check the apply makes is made here. */
export async function prepareRewind(
  store: Store,
  session: StoredSession,
  turn: number,
  o: RewindOptions,
): Promise<PreparedRewind> {
  const { manifest } = session;
  const root = manifest.repo.root;
  if (!o.from) refuseElsewhere(store, root, `session ${manifest.id}`);
  const target = turnOf(manifest, turn);
  const latest = manifest.turns.at(-1)!;
  // Elsewhere than the store's work tree, what the capture will ask git first, asked meanwhile.
  if (root !== store.repoRoot) void git.ignoreFiles(root).catch(() => undefined);
  // Independent checks at once; a refusal is the first of them in this order, as when they ran one by one.
  // The capture comes after them: it writes the work tree's objects, which may be the very tree found gone.
  const objects = [target.snapshot.tree, latest.snapshot.tree, ...(o.needsCommit ? [target.snapshot.commit] : [])];
  const [, , present] = await inOrder([
    refuseIfInterrupted(store, root),
    refuseIfClaudeRunsIn(store, root, o.from),
    root === store.repoRoot ? objectsExistHere(root, store.commonDir, objects) : git.objectsExist(root, objects),
  ] as const);
  // The tree alone may be there again (the work tree's own capture wrote it) with its commit pruned.
  if (!present[0] || present[2] === false) throw treeGone(`turn ${turn}'s snapshot of session ${manifest.id}`);
  // The diffs to the target, from the tree the kept index holds, asked while the capture scans:
  // the capture finds that tree again unless files changed since the last rewind (then asked again).
  const kept = await keptIndex(store, root);
  const held = o.scope === "conversation" ? null : await kept.index.heldTree();
  const ignoreFiles = kept.ignoreFiles ?? (() => git.ignoreFiles(root));
  const early = held
    ? {
        from: held,
        side: targetSide(store, manifest, target, held, present[1]!, ignoreFiles).catch(() => null),
      }
    : null;
  const state = await captureWorkTree(store, root);
  const known = early?.from === state.tree ? await early.side : null;
  // A rewind of the conversation only leaves the files alone: nothing of theirs to work out.
  const all = o.scope === "conversation" ? NO_CODE : await codeSide(store, manifest, target, state, present[1]!, known);
  const { code, shared } = o.includeShared
    ? { code: all, shared: null }
    : await keepShared(store, manifest, target, all);
  const headRelation = await relationOf(root, target.head, state.head);
  const headOnHistory = headRelation !== "behind" && headRelation !== "apart";
  const plan = planRewind({
    manifest,
    turn,
    scope: o.scope,
    resetHead: o.resetHead,
    current: { tree: state.tree, head: state.head, branch: state.branch },
    changes: code.changes,
    userChanges: code.userChanges,
    recordedEdits: o.scope === "conversation" ? new Set() : await recordedEdits(root, manifest, target),
    ignoredAtTarget: code.ignoredAtTarget,
    inTheWay: code.inTheWay,
    submoduleSwaps: submoduleSwaps(code.changes),
    headOnHistory,
    headRelation,
    shared,
  });
  return { plan, state, changes: code.changes, keepOnDisk: code.ignoredAtTarget, hidden: code.hidden };
}

/**
 * Wait for all of them, then fail with the first failure in the order given (not the first in
 * time): the same refusal as when they ran one after another.
 */
async function inOrder<T extends readonly unknown[]>(work: { readonly [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(work);
  for (const s of settled) if (s.status === "rejected") throw s.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Where HEAD now stands against the turn's recorded HEAD (two git processes at most, only when they differ). */
async function relationOf(
  root: string,
  recorded: string | null,
  current: string | null,
): Promise<"ahead" | "behind" | "apart" | null> {
  if (!recorded || !current || recorded === current) return null;
  if (await git.isAncestor(root, recorded, current)) return "ahead";
  return (await git.isAncestor(root, current, recorded)) ? "behind" : "apart";
}

/** Paths the user changed by hand after the target turn: what each later turn recorded as their edits before its prompt. */
async function recordedEdits(root: string, manifest: Manifest, target: Turn): Promise<Set<string>> {
  const turns = manifest.turns.filter((t) => t.n > target.n && t.edits);
  const before = (t: Turn) => manifest.turns.find((p) => p.n === t.n - 1)?.snapshot.tree;
  const lists = await Promise.all(
    turns.map((t) => (before(t) ? git.changedPaths(root, before(t)!, t.edits!.snapshot.tree).catch(() => []) : [])),
  );
  return new Set(lists.flat().map((c) => c.path));
}

/**
 * Of the paths that differ from the latest snapshot, the user's own. In an imported (or pulled)
 * session, a file as some turn left it — the base state the clone was at — is not the user's;
 * in one recorded here, a deletion can be the user's even where an early turn lacked the file.
 */
async function inNoSnapshot(root: string, manifest: Manifest, current: string, paths: string[]): Promise<Set<string>> {
  if (paths.length === 0 || !manifest.origin) return new Set(paths);
  const distinct = [...new Set(manifest.turns.map((t) => t.snapshot.tree))];
  // A pruned snapshot tree reads as holding nothing: it would pass for a deletion.
  const present = await git.objectsExist(root, distinct, "tree");
  const trees = distinct.filter((_, i) => present[i]);
  const seen = await git.pathObjects(root, [current, ...trees], paths);
  const now = seen.get(current)!;
  return new Set(paths.filter((p) => !now.has(p) || !trees.some((t) => seen.get(t)!.get(p) === now.get(p))));
}

interface CodeSide {
  /** From the captured tree to the target, with the hidden files to delete (see unhidden-files.ts). */
  changes: git.TreeChange[];
  /** Paths of the user's own changes (in no snapshot). */
  userChanges: Set<string>;
  ignoredAtTarget: Set<string>;
  inTheWay: string[];
  hidden: HiddenFile[];
}

const NO_CODE: CodeSide = { changes: [], userChanges: new Set(), ignoredAtTarget: new Set(), inTheWay: [], hidden: [] };

/**
 * From the work tree's tree `current` to the target, and from the latest snapshot to `current` (the
 * user's own changes; unknowable if the latest snapshot was pruned), in one git process: a rewind
 * is a few git processes, each ~4 ms of node's spawn. `latestThere`: that snapshot's tree is in
 * the repository. With them, the deletions the target's ignore rules would leave on disk.
 */
async function targetSide(
  store: Store,
  manifest: Manifest,
  target: Turn,
  current: string,
  latestThere: boolean,
  ignoreFiles: () => Promise<string[]>,
): Promise<TargetSide> {
  const latest = manifest.turns.at(-1)!.snapshot.tree;
  const mine = latestThere && !isSnapshotOf(manifest, current);
  const pairs: Array<[string, string]> = [
    [current, target.snapshot.tree],
    ...(mine ? [[latest, current] as [string, string]] : []),
  ];
  const diffs = await git.changedPathPairs(manifest.repo.root, pairs);
  // Two different trees always differ in some file: none said means git could not read one (diff-tree
  // --stdin skips such a pair without failing), as a tree the kept index held may be, pruned since.
  if (pairs.some(([a, b], i) => a !== b && diffs[i]!.length === 0))
    throw new InternalError(`git could not read the trees ${pairs.flat().join(", ")}`);
  const changes = diffs[0]!;
  const deletions = changes.filter((c) => c.status === "D" && !git.isSubmodule(c)).map((c) => c.path);
  // Made only if git is asked (most rewinds delete nothing an ignore rule could match).
  const scratch = path.join(store.dir, "index", `.ignore-check-${process.pid}-${randomHex(4)}`);
  const ignoredAtTarget = await ignoredInTree(
    manifest.repo.root,
    target.snapshot.tree,
    deletions,
    scratch,
    deletions.length ? await ignoreFiles() : [],
  ).finally(() => fs.rm(scratch, { recursive: true, force: true }));
  return { changes, userChanges: diffs[1] ?? [], ignoredAtTarget };
}

interface TargetSide {
  changes: git.TreeChange[];
  userChanges: git.TreeChange[];
  ignoredAtTarget: Set<string>;
}

/**
 * What putting the target's code in place would do to the work tree as captured. `latestThere`:
 * the latest snapshot's tree is in the repository; `known`: `targetSide` from the captured tree, if already asked.
 */
async function codeSide(
  store: Store,
  manifest: Manifest,
  target: Turn,
  state: WorkTreeState,
  latestThere: boolean,
  known: TargetSide | null,
): Promise<CodeSide> {
  const root = manifest.repo.root;
  const { changes, userChanges, ignoredAtTarget } =
    known ?? (await targetSide(store, manifest, target, state.tree, latestThere, state.ignoreFiles));
  const scratch = path.join(store.dir, "index", `.unhidden-${process.pid}-${randomHex(4)}`);
  const unhidden = await unhiddenFiles(root, {
    target,
    later: manifest.turns.filter((t) => t.n > target.n),
    changes,
    scratch,
  }).finally(() => fs.rm(scratch, { recursive: true, force: true }));
  changes.push(...unhidden);
  return {
    changes,
    userChanges: await inNoSnapshot(
      root,
      manifest,
      state.tree,
      userChanges.map((c) => c.path),
    ),
    ignoredAtTarget,
    inTheWay: await pathsInTheWay(root, changes),
    hidden: unhidden.map((c) => ({ path: c.path, mode: c.oldMode, blob: c.oldBlob })),
  };
}

/**
 * Files a turn after the target changed while another recording shared the work tree (`claude
 * run --force`) may be that session's work, not this one's: left as they are, the target's tree
 * taking them as they are now, unless --include-shared. The paths are those the shared turns'
 * snapshots changed; a later turn of this session alone that changed one too does not undo that.
 */
async function keepShared(
  store: Store,
  manifest: Manifest,
  target: Turn,
  code: CodeSide,
): Promise<{ code: CodeSide; shared: SharedFiles | null }> {
  const root = manifest.repo.root;
  const turns = manifest.turns.filter((t) => t.n > target.n && t.sharedWith?.length);
  if (turns.length === 0 || code.changes.length === 0) return { code, shared: null };
  const before = (t: Turn) => t.edits?.snapshot.tree ?? manifest.turns.find((p) => p.n === t.n - 1)!.snapshot.tree;
  const paths = new Set(
    (await Promise.all(turns.map((t) => git.changedPaths(root, before(t), t.snapshot.tree)))).flat().map((c) => c.path),
  );
  const kept = code.changes.filter((c) => paths.has(c.path) && !git.isSubmodule(c));
  if (kept.length === 0) return { code, shared: null };
  // The tree the rewind puts in place: the target's, with the kept paths as the work tree has them.
  const asNow = kept.map((c): git.TreeChange => ({
    status: c.status === "A" ? "D" : c.status === "D" ? "A" : c.status,
    path: c.path,
    oldMode: c.mode,
    oldBlob: c.blob,
    mode: c.oldMode,
    blob: c.oldBlob,
  }));
  const scratch = await fs.mkdtemp(path.join(store.dir, "index", ".shared-"));
  const tree = await git
    .overlayTree(root, path.join(scratch, "index"), target.snapshot.tree, asNow)
    .finally(() => fs.rm(scratch, { recursive: true, force: true }));
  const keptPaths = new Set(kept.map((c) => c.path));
  return {
    code: {
      ...code,
      changes: code.changes.filter((c) => !keptPaths.has(c.path)),
      hidden: code.hidden.filter((h) => !keptPaths.has(h.path)),
    },
    shared: {
      tree,
      paths: kept.map((c) => git.displayPath(c.path)),
      sessions: [...new Set(turns.flatMap((t) => t.sharedWith ?? []))],
      turns: turns.map((t) => t.n),
    },
  };
}

/**
 * Carry out a plan (under the same lock as `prepareRewind`). The backup ref and the record exist
 * before the work tree changes: a crash midway can be finished, rolled back, or undone.
 */
export async function applyRewind(
  store: Store,
  session: StoredSession,
  { plan, state, changes, keepOnDisk, hidden }: PreparedRewind,
  /**
   * A fork put in place: its record says so from the start and stays "started" until the fork's
   * session is made (the caller saves it then), so that a fork cut off anywhere is finished by
   * `--continue`, session and all.
   */
  o: { forking?: boolean } = {},
): Promise<RewindRecord> {
  const root = state.root;
  if (!holdsWorkTree(store, root)) throw new InternalError(`a rewind of ${root} is applied without its lock`);
  const stamp = newStamp();
  const withCode = plan.scope !== "conversation";
  let indexCopy: string | null = null;
  if (plan.head.reset) {
    const userIndex = await git.indexPath(root);
    // Git would refuse to reset the index half way through; find out before any file changes.
    if (await fs.stat(`${userIndex}.lock`).catch(() => null)) {
      throw new UserError(
        `another git process is working in ${root} (its index is locked); nothing was changed`,
        "wait for it to finish, then run the rewind again",
      );
    }
    indexCopy = path.join(rewindsDir(store), `${stamp}.index`);
    await ensureDir(rewindsDir(store));
    await copyFileAtomic(userIndex, indexCopy);
  }
  const record = await beginRecord(store, state, stamp, {
    backup: {
      ref: `${BACKUP_REFS}${stamp}`,
      message: `nudge backup before rewinding ${plan.sessionId} to turn ${plan.turn}`,
    },
    kind: "rewind",
    sessionId: plan.sessionId,
    turn: plan.turn,
    scope: plan.scope,
    before: { head: state.head, branch: state.branch, rewoundTo: session.manifest.rewoundTo, indexCopy },
    after: { tree: withCode ? plan.target.tree : state.tree, head: plan.head.reset ? plan.head.recorded : state.head },
    undoes: null,
    hidden: withCode ? hidden : [],
    forking: o.forking,
  });
  await failedIfThrows(store, record, async () => {
    faultPoint("rewind-after-record");
    if (withCode)
      await switchVerified(state, {
        from: state.tree,
        to: plan.target.tree,
        what: `turn ${plan.turn}`,
        changes,
        keepOnDisk,
        hidden: new Set(hidden.map((h) => h.path)),
      });
  });
  // From here the record stays `started` on any failure: this rewind is the interrupted one, which
  // --continue finishes and --abort rolls back. (Marked applied, --undo would be the hint; on a full
  // disk that write fails too, and --undo would then restore the rewind before this one.)
  try {
    faultPoint("rewind-after-switch");
    if (plan.head.reset) {
      try {
        faultPoint("rewind-head");
        await git.moveRef(
          root,
          state.branch ? `refs/heads/${state.branch}` : "HEAD",
          plan.head.recorded!,
          plan.head.current ?? git.NO_REF,
        );
        await git.resetIndexTo(root, plan.head.recorded!);
      } catch (error) {
        throw unfinished(`the files are at turn ${plan.turn}, but moving HEAD and the index back failed`, error);
      }
    }
    // Rewound to the last reply: the conversation is where it stands, so the next run goes on without a fork.
    if (plan.scope !== "code")
      await updateHeader(session.dir, { rewoundTo: plan.conversationInPlace ? null : plan.turn });
    const done: RewindRecord = { ...record, status: "applied" };
    if (!o.forking) await saveRecord(store, done);
    return done;
  } catch (error) {
    throw error instanceof UserError
      ? error
      : unfinished(`the files are at turn ${plan.turn}, but the rewind could not be finished`, error);
  }
}

/**
 * The part of an operation before any file is left changed (a failed switch puts back what it
 * touched): if it throws, the record says failed, with nothing to finish or undo.
 */
async function failedIfThrows(store: Store, record: RewindRecord, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    await saveRecord(store, { ...record, status: "failed" });
    throw error;
  }
}

/**
 * A rewind or undo whose files were switched, cut short after (moving HEAD, saving its record):
 * what happened, in one line, and how to finish it, since its record says it is still under way.
 */
function unfinished(what: string, error: unknown, kind: "rewind" | "undo" = "rewind"): UserError {
  const text = errorMessage(error);
  const full = isDiskFull(error);
  const why = full
    ? "the disk is full"
    : (text.split("\n").find((l) => /^(fatal|error): /.test(l)) ?? text.split("\n")[0]!);
  return new UserError(
    `${what}: ${why}`,
    `${full ? "free some disk space, then f" : "F"}inish this ${kind} with: nudge session rewind --continue (or put everything back as it was: nudge session rewind --abort)`,
  );
}

/** An undo's plan with the captured work tree it was computed from. */
export interface PreparedUndo {
  plan: UndoPlan;
  state: WorkTreeState;
  changes: git.TreeChange[];
}

/** Plan the undo of the last rewind (under the work tree's lock: `withWorkTree(store, <its root>, …)`). */
export async function prepareUndo(store: Store, o: { from?: string } = {}): Promise<PreparedUndo> {
  // An operation cut off halfway comes first: until it is finished or rolled back, "the last rewind" is not settled.
  await refuseIfInterrupted(store, store.repoRoot);
  const record = await lastRewind(store);
  if (!record)
    throw new UserError(
      "there is no rewind to undo",
      "nudge session backups lists the rewinds; nudge session list shows the sessions",
    );
  // It was made here (refused otherwise), so the check above for an interrupted operation covered its work tree.
  refuseElsewhere(store, record.root, `the last rewind (of session ${record.sessionId})`);
  await refuseIfClaudeRunsIn(store, record.root, o.from);
  await requireTree(record.root, record.backup.tree, `the backup of the last rewind (${record.backup.ref})`);
  const state = await captureWorkTree(store, record.root);
  const changes = await git.changedPaths(record.root, state.tree, record.backup.tree);
  const sinceRewind =
    record.after && state.tree !== record.after.tree
      ? await git.changedPaths(record.root, record.after.tree, state.tree)
      : [];
  const gone = {
    session: !(await pathExists(bundleDir(store, record.sessionId))),
    fork: record.fork !== null && !(await pathExists(bundleDir(store, record.fork))),
  };
  const plan = planUndo(record, state, changes, gone, {
    inTheWay: await pathsInTheWay(record.root, changes),
    submoduleSwaps: submoduleSwaps(changes),
    userChanges: new Set(sinceRewind.map((c) => c.path)),
  });
  return { plan, state, changes };
}

/**
 * The start of a rewind or an undo: what the work tree holds now, kept under a backup ref, and the record saying
 * what is about to happen, both before any file changes: a crash midway can be finished or undone.
 */
async function beginRecord(
  store: Store,
  state: WorkTreeState,
  stamp: string,
  o: Omit<RewindRecord, "stamp" | "at" | "root" | "backup" | "status" | "owner" | "fork" | "forking" | "undoesFork"> & {
    backup: { ref: string; message: string };
    forking?: boolean;
    undoesFork?: boolean;
  },
): Promise<RewindRecord> {
  // In the store's own work tree, its git dir is known: the commit and ref may be written without git.
  const commonDir = state.root === store.repoRoot ? store.commonDir : undefined;
  const commit = await backupCommit(state.root, state.tree, state.head, o.backup.message, commonDir);
  const record: RewindRecord = {
    ...o,
    stamp,
    at: new Date().toISOString(),
    root: state.root,
    backup: { commit, tree: state.tree, ref: o.backup.ref },
    status: "started",
    owner: thisProcess(),
    fork: null,
    forking: o.forking ?? false,
    undoesFork: o.undoesFork ?? false,
  };
  // The ref first: a record saved beside a ref that failed would read as an operation cut off halfway.
  await setNudgeRef(state.root, o.backup.ref, commit, commonDir);
  await saveRecord(store, record);
  return record;
}

/** The rewind a prepared undo undoes: where its files were, the session the conversation returns to. */
export async function undoLastRewind(
  store: Store,
  { plan, state, changes }: PreparedUndo,
): Promise<{ record: RewindRecord; savedEdits: string | null; notRestored: string[] }> {
  const rewind = plan.undo;
  const root = rewind.root;
  if (!holdsWorkTree(store, root)) throw new InternalError(`an undo in ${root} is applied without its lock`);
  const stamp = newStamp();
  // What is there now (the rewound files, and edits made since) is kept too: an undo never loses anything.
  const undo = await beginRecord(store, state, stamp, {
    backup: { ref: `${BACKUP_REFS}${stamp}-before-undo`, message: "nudge backup before undoing a rewind" },
    kind: "undo",
    sessionId: rewind.sessionId,
    turn: rewind.turn,
    scope: rewind.scope,
    before: { head: state.head, branch: state.branch, rewoundTo: rewind.turn, indexCopy: null },
    after: { tree: rewind.backup.tree, head: plan.head ? plan.head.to : state.head },
    undoes: rewind.stamp,
    undoesFork: rewind.forking || rewind.fork !== null,
    // The same files: an undo cut off halfway and then finished writes them back too.
    hidden: rewind.hidden,
  });
  await failedIfThrows(store, undo, async () => {
    faultPoint("undo-after-record");
    await switchVerified(state, {
      from: state.tree,
      to: rewind.backup.tree,
      what: "the state before the rewind",
      changes,
    });
  });
  // From here the record stays `started` on any failure (see applyRewind): --continue finishes it.
  try {
    const notRestored = await restoreHidden(root, rewind.hidden);
    faultPoint("undo-after-switch");
    if (plan.head) {
      await git.moveRef(
        root,
        plan.head.branch ? `refs/heads/${plan.head.branch}` : "HEAD",
        plan.head.to,
        plan.head.from ?? git.NO_REF,
      );
      await copyFileAtomic(rewind.before.indexCopy!, await git.indexPath(root));
    }
    // The session may have been removed since (`session rm` keeps the backup --undo restores): the files still come back.
    if (rewind.scope !== "code" && !plan.sessionGone)
      await updateHeader(bundleDir(store, rewind.sessionId), { rewoundTo: rewind.before.rewoundTo });
    // An undone fork is abandoned: the session it was forked from is the one used last again, so `claude run -c` goes on with it.
    else if (rewind.fork && !plan.sessionGone) await updateHeader(bundleDir(store, rewind.sessionId), {});
    await saveRecord(store, { ...rewind, status: "undone" });
    await saveRecord(store, { ...undo, status: "applied" });
    return { record: rewind, savedEdits: plan.keepsEdits ? undo.backup.ref : null, notRestored };
  } catch (error) {
    throw unfinished("the files are as they were before the rewind, but the undo could not be finished", error, "undo");
  }
}

/** Take the lock of the work tree an undo applies to, for the whole of it (plan, question, apply). */
export async function withUndo<T>(store: Store, work: () => Promise<T>): Promise<T> {
  const record = await lastRewind(store);
  return withWorkTree(store, record?.root ?? store.repoRoot, "undoing a rewind", work);
}
