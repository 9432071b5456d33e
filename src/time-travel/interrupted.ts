/**
 * Finish, or roll back, a rewind or an undo that was cut off halfway (a kill -9, a crash, the
 * machine going down): its record says what it meant to do (the state before, kept under its
 * backup ref, and the state after). Only the paths it planned are touched, and each must be
 * found as it was before or as it should be after; anything else was changed by someone since,
 * and is never overwritten.
 */
import { UserError } from "../base/errors.js";
import { plainMessage } from "../base/system-problem.js";
import { copyFileAtomic } from "../store/atomic-write.js";
import { bundleDir, loadSession, updateHeader, type Store } from "../store/store.js";
import * as git from "../snapshot/git.js";
import { requireTree } from "../snapshot/snapshotter.js";
import { pathExists } from "../base/file-exists.js";
import { forkBundle } from "./fork.js";
import { codeChanges, type CodeChanges } from "./rewind-plan.js";
import {
  allRecords,
  interruptedIn,
  operationName,
  operationPhrase,
  resumeRecord,
  saveRecord,
  type RewindRecord,
} from "./rewind-log.js";
import { captureWorkTree, type WorkTreeState } from "./rewind.js";
import { removeHidden, restoreHidden } from "./unhidden-files.js";
import { switchVerified } from "./work-tree-switch.js";

export type Resolution = "continue" | "abort";

export interface InterruptedPlan extends CodeChanges {
  record: RewindRecord;
  how: Resolution;
  state: WorkTreeState;
  changes: git.TreeChange[];
}

export async function planInterrupted(store: Store, how: Resolution): Promise<InterruptedPlan> {
  const record = await interruptedIn(store, store.repoRoot);
  if (!record || !record.after) {
    throw new UserError(
      "there is no interrupted rewind, fork or undo in this work tree",
      "nudge session backups lists what was done",
    );
  }
  const root = record.root;
  await requireTree(root, record.backup.tree, `the backup of the interrupted operation (${record.backup.ref})`);
  const state = await captureWorkTree(store, root);
  const [from, to] =
    how === "continue" ? [record.backup.tree, record.after.tree] : [record.after.tree, record.backup.tree];
  const planned = new Map((await git.changedPaths(root, from, to)).map((c) => [c.path, c]));
  const left = (await git.changedPaths(root, state.tree, to)).filter((c) => planned.has(c.path));
  // What is on disk must be the "from" side of the plan: half done, not changed by someone else.
  const conflicts = left.filter((c) => {
    const p = planned.get(c.path)!;
    return c.oldMode !== p.oldMode || c.oldBlob !== p.oldBlob;
  });
  // Refused here, so that --dry-run says it too: a file changed by someone since is never overwritten.
  if (conflicts.length > 0) {
    throw new UserError(
      `files were changed since the interrupted ${operationName(record)}: ${conflicts
        .slice(0, 5)
        .map((c) => git.shownPath(c.path))
        .join(", ")}; nothing was changed`,
      `copy what you want to keep of them elsewhere, put them back as they were before it (git restore --source=${record.backup.ref} -- <path>), then run the command again`,
    );
  }
  return { record, how, state, changes: left, ...codeChanges(left) };
}

export function describeInterrupted(plan: InterruptedPlan): string[] {
  const r = plan.record;
  const what = `the ${operationPhrase(r)}`;
  const lines = [`${plan.how === "continue" ? "finish" : "roll back"} ${what} (interrupted; started ${r.at})`];
  // In the order the switch makes them, as a plan lists them.
  lines.push(
    ...plan.remove.map((p) => `  delete  ${git.printablePath(p)}`),
    ...plan.write.map((p) => `  write   ${git.printablePath(p)}`),
  );
  if (plan.write.length + plan.remove.length === 0) lines.push("  code: nothing left to write");
  if (unmadeFork(r) && plan.how === "continue")
    lines.push(`  fork: a new session forked from turn ${r.turn} of ${r.sessionId} is made`);
  return lines;
}

/** A fork put in place that was cut off before its session was made (its files may be done or not). */
function unmadeFork(r: RewindRecord): boolean {
  return r.kind === "rewind" && r.forking && r.fork === null;
}

export async function resolveInterrupted(store: Store, plan: InterruptedPlan): Promise<RewindRecord> {
  const { record, how, state } = plan;
  resumeRecord(record);
  const target = how === "continue" ? record.after!.tree : record.backup.tree;
  await switchVerified(state, {
    from: state.tree,
    to: target,
    what: how === "continue" ? `turn ${record.turn}` : "the state before",
    changes: plan.changes,
  });
  // Files no tree holds (see unhidden-files.ts): what the plan's trees cannot say.
  if (record.kind === "rewind" && how === "abort") await restoreHidden(record.root, record.hidden);
  if (record.kind === "rewind" && how === "continue") await removeHidden(record.root, record.hidden);
  if (record.kind === "undo" && how === "continue") await restoreHidden(record.root, record.hidden);
  await settleHead(record, how);
  await settleConversation(store, record, how);
  const status: RewindRecord["status"] = how === "continue" ? "applied" : "rolled-back";
  // A finished undo has undone its rewind: --undo must not restore that one again.
  const undone =
    record.kind === "undo" && how === "continue"
      ? (await allRecords(store)).find((r) => r.stamp === record.undoes)
      : undefined;
  if (undone) await saveRecord(store, { ...undone, status: "undone" });
  // Left "started" until its fork is made: cut off again meanwhile, the next --continue makes it.
  if (how === "continue" && unmadeFork(record)) return makeFork(store, record);
  await saveRecord(store, { ...record, status });
  return { ...record, status };
}

/**
 * The session of a fork put in place whose files `--continue` finished: made now, as the fork
 * would have made it (the half-built folder it left is removed by `nudge session gc`), and named
 * in the record, so that `--undo` says it undoes a fork and leaves it recorded. If it cannot be
 * made, the record is applied all the same (the files are done) and the error says how to fork.
 */
async function makeFork(store: Store, record: RewindRecord): Promise<RewindRecord> {
  try {
    const source = await loadSession(store, record.sessionId);
    const { manifest } = await forkBundle(store, source, record.turn);
    const forked = { ...record, status: "applied" as const, fork: manifest.id };
    await saveRecord(store, forked);
    return forked;
  } catch (error) {
    await saveRecord(store, { ...record, status: "applied" });
    // The session forked removed meanwhile: no fork can be made of it, and the files can go back.
    const gone = !(await pathExists(bundleDir(store, record.sessionId)));
    throw new UserError(
      `the files are at turn ${record.turn} of ${record.sessionId}, but its fork could not be made: ${gone ? "that session was removed" : plainMessage(error)}`,
      gone
        ? "put the files back with: nudge session rewind --undo"
        : `make it with: nudge session fork ${record.sessionId} ${record.turn} --yes (the files are already there, so none is written)`,
    );
  }
}

/** HEAD and index: where the operation would have left them (continue), or where they were (abort). */
async function settleHead(record: RewindRecord, how: Resolution): Promise<void> {
  const { before, after, root } = record;
  if (!after || before.head === after.head || !before.head || !after.head) return;
  const [from, to] = how === "continue" ? [before.head, after.head] : [after.head, before.head];
  const head = await git.headCommit(root);
  const ref = before.branch ? `refs/heads/${before.branch}` : "HEAD";
  if (head === from) await git.moveRef(root, ref, to, from);
  if (how === "abort" && before.indexCopy) await copyFileAtomic(before.indexCopy, await git.indexPath(root));
  else if (how === "continue" && record.kind === "rewind") await git.resetIndexTo(root, to);
}

/** Where the session's next run resumes, as the operation meant (continue) or as it was (abort). */
async function settleConversation(store: Store, record: RewindRecord, how: Resolution): Promise<void> {
  const dir = bundleDir(store, record.sessionId);
  if (record.scope === "code" || !(await pathExists(dir))) return;
  if (record.kind === "rewind")
    await updateHeader(dir, { rewoundTo: how === "continue" ? record.turn : record.before.rewoundTo });
  else await updateHeader(dir, { rewoundTo: how === "continue" ? null : record.turn });
}
