/**
 * What changed in a session's code between two of its snapshots: a turn's own change, the user's
 * edits before a turn, or any two turns. `session diff` prints it; the web view shows it.
 */
import type { Manifest } from "../store/manifest-schema.js";
import type { Store } from "../store/store.js";
import { turnOf } from "../store/turn-lookup.js";
import { UserError } from "../base/errors.js";
import * as git from "../snapshot/git.js";
import { countChanges, splitPatch, type FileDiff, type FileStatus } from "../snapshot/patch-sections.js";
import { requireTree } from "../snapshot/snapshotter.js";

export interface DiffRange {
  /** Turn numbers; `from` null means the commit the session started on. */
  from: number | null;
  to: number;
  /** null: the empty tree (the session started on an unborn branch). */
  fromTree: string | null;
  toTree: string;
  label: string;
  /** Files the range took out of the snapshot because an ignore rule covers them; still on disk. */
  nowIgnored?: string[];
}

/** Turn numbers → the two snapshot trees to compare, or a UserError saying what is wrong. */
export function pickRange(
  m: Manifest,
  turnArg: number | undefined,
  fromArg: number | undefined,
  toArg: number | undefined,
  yourEdits = false,
): DiffRange {
  const usage = `e.g. nudge session diff ${m.id} 2, or nudge session diff ${m.id} --from 0 --to 2`;
  const both = fromArg !== undefined || toArg !== undefined;
  if (turnArg !== undefined && both) throw new UserError("give a turn or --from/--to, not both", usage);
  if (yourEdits && turnArg === undefined)
    throw new UserError("--edits goes with a turn: the edits you made before it", usage);
  if (turnArg === undefined && !both)
    throw new UserError("say which changes to show: a turn, or --from and --to", usage);
  if (turnArg === undefined && (fromArg === undefined || toArg === undefined)) {
    throw new UserError("--from and --to go together", usage);
  }
  const tree = (n: number) => {
    const turn = turnOf(m, n);
    return { n: turn.n, tree: turn.snapshot.tree };
  };
  if (turnArg !== undefined) {
    const to = tree(turnArg);
    if (to.n === 0) {
      // Turn 0 is the uncommitted work present when the session started: compare with its base commit.
      const base = m.repo.baseCommit === null ? null : `${m.repo.baseCommit}^{tree}`;
      return { from: null, to: 0, fromTree: base, toTree: to.tree, label: "at the start of the session" };
    }
    const from = tree(to.n - 1);
    const edits = turnOf(m, to.n).edits;
    if (yourEdits) {
      if (!edits)
        return {
          from: from.n,
          to: to.n,
          fromTree: from.tree,
          toTree: from.tree,
          label: `of yours before turn ${to.n}`,
        };
      return {
        from: from.n,
        to: to.n,
        fromTree: from.tree,
        toTree: edits.snapshot.tree,
        label: `of yours before turn ${to.n}`,
        nowIgnored: edits.patch.nowIgnored,
      };
    }
    // A turn's own changes start where the turn started: after the user's edits, if there were any.
    return {
      from: from.n,
      to: to.n,
      fromTree: edits?.snapshot.tree ?? from.tree,
      toTree: to.tree,
      label: `in turn ${to.n}`,
      nowIgnored: turnOf(m, to.n).patch.nowIgnored,
    };
  }
  const from = tree(fromArg!);
  const to = tree(toArg!);
  return {
    from: from.n,
    to: to.n,
    fromTree: from.tree,
    toTree: to.tree,
    label: `between turn ${from.n} and turn ${to.n}`,
  };
}

/** The changed files between the range's two trees, each with its part of the readable patch. */
export async function turnDiff(store: Store, m: Manifest, range: DiffRange): Promise<FileDiff[]> {
  const root = store.repoRoot;
  const snapshotOf = (n: number | null) =>
    n === null ? `the commit session ${m.id} started from` : `turn ${n}'s snapshot of session ${m.id}`;
  if (range.fromTree !== null) await requireTree(root, range.fromTree, snapshotOf(range.from));
  await requireTree(root, range.toTree, snapshotOf(range.to));
  const fromTree = range.fromTree ?? (await git.emptyTree(root));
  const toTree = range.toTree;
  const [entries, patch] = await Promise.all([
    git.diffEntries(root, fromTree, toTree),
    git.readablePatch(root, fromTree, toTree),
  ]);
  const sections = splitPatch(patch.toString("utf8")); // for the terminal: bytes that are not UTF-8 show as �
  const sizes = await git.blobSizes(root, [
    ...new Set(entries.flatMap((e) => [e.oldBlob, e.newBlob]).filter((b) => !/^0+$/.test(b))),
  ]);
  let next = 0;
  return entries.map((e) => {
    // git prints a type change (file ↔ symlink) as a delete and an add: two sections, one entry.
    const lines = sections.slice(next, (next += e.status === "T" ? 2 : 1)).flat();
    return {
      path: e.path,
      ...(e.oldPath !== undefined && { oldPath: e.oldPath }),
      status: STATUS[e.status],
      ...countChanges(lines),
      oldMode: /^0+$/.test(e.oldMode) ? null : e.oldMode,
      newMode: /^0+$/.test(e.newMode) ? null : e.newMode,
      oldBytes: sizes.get(e.oldBlob) ?? null,
      newBytes: sizes.get(e.newBlob) ?? null,
      lines,
    };
  });
}

const STATUS: Record<git.TreeDiffEntry["status"], FileStatus> = {
  A: "added",
  D: "deleted",
  M: "modified",
  T: "type-changed",
  R: "renamed",
};
