/**
 * What a rewind (or its undo) will do, computed before anything is touched: files to write and
 * delete, whether unsaved work gets backed up, what happens to HEAD and to the conversation.
 * Pure: the facts come in, the plan (or a refusal) comes out, so --dry-run and the tests need no disk.
 */
import { UserError } from "../errors.js";
import type { Manifest } from "../bundle/manifest-schema.js";
import { resumePoint, turnOf } from "../bundle/turn-lookup.js";
import { displayPath, isSubmodule, printablePath, type TreeChange } from "../snapshot/git.js";
import type { RewindRecord } from "./rewind-log.js";

export type RewindScope = "both" | "code" | "conversation";

export interface RewindFacts {
  manifest: Manifest;
  turn: number;
  scope: RewindScope;
  resetHead: boolean;
  /** The work tree as it is now, staged into a private index. */
  current: { tree: string; head: string | null; branch: string | null };
  /** From the current tree to the target turn's tree. */
  changes: TreeChange[];
}

/** What switching the work tree does to it: the files written and deleted, and the submodules left alone. */
export interface CodeChanges {
  write: string[];
  remove: string[];
  /** Submodules whose recorded commit differs: recorded only, their work trees stay as they are. */
  submodules: Array<{ path: string; commit: string | null }>;
}

export function codeChanges(changes: TreeChange[]): CodeChanges {
  const files = changes.filter((c) => !isSubmodule(c));
  return {
    write: files.filter((c) => c.status !== "D").map((c) => displayPath(c.path)),
    remove: files.filter((c) => c.status === "D").map((c) => displayPath(c.path)),
    submodules: changes.filter(isSubmodule).map((c) => ({ path: displayPath(c.path), commit: c.mode === "160000" ? c.blob : null })),
  };
}

export interface RewindPlan extends CodeChanges {
  sessionId: string;
  turn: number;
  scope: RewindScope;
  target: { tree: string; commit: string };
  current: { tree: string; head: string | null; branch: string | null };
  /** The work tree holds something the session's latest snapshot does not. */
  unsavedWork: boolean;
  head: { recorded: string | null; current: string | null; differs: boolean; reset: boolean };
  /** Where the conversation resumes (null: the code alone is rewound, or there is no reply to resume from). */
  conversation: ReturnType<typeof resumePoint>;
}

export function planRewind(f: RewindFacts): RewindPlan {
  const turn = turnOf(f.manifest, f.turn);
  const latest = f.manifest.turns.at(-1)!;
  const headDiffers = turn.head !== f.current.head;
  if (f.resetHead && !turn.head) {
    throw new UserError(`turn ${f.turn} was recorded before the repository's first commit`, "rewind without --reset-head");
  }
  return {
    sessionId: f.manifest.id,
    turn: f.turn,
    scope: f.scope,
    target: { tree: turn.snapshot.tree, commit: turn.snapshot.commit },
    current: f.current,
    ...codeChanges(f.scope === "conversation" ? [] : f.changes),
    unsavedWork: f.current.tree !== latest.snapshot.tree,
    head: { recorded: turn.head, current: f.current.head, differs: headDiffers, reset: f.resetHead && headDiffers },
    conversation: f.scope === "code" ? null : resumePoint(f.manifest, f.turn),
  };
}

/** The plan as lines a person reads (for --dry-run, and before asking for confirmation). */
export function describePlan(plan: RewindPlan): string[] {
  const lines = [`rewind session ${plan.sessionId} to turn ${plan.turn}`];
  if (plan.scope !== "conversation") {
    lines.push(...codeLines(plan, "at that turn"));
    lines.push(
      plan.unsavedWork
        ? "  backup: the work tree has changes not in any snapshot; they are saved first (undo: nudge session rewind --undo)"
        : "  backup: the current state is saved first (undo: nudge session rewind --undo)",
    );
  }
  if (plan.head.differs) {
    lines.push(
      plan.head.reset
        ? `  HEAD: ${plan.current.branch ?? "HEAD"} moves from ${short(plan.head.current)} back to ${short(plan.head.recorded)}; later commits stay reachable from the backup`
        : `  HEAD: commits were made since turn ${plan.turn} (${short(plan.head.recorded)} then, ${short(plan.head.current)} now); HEAD stays, pass --reset-head to move it back`,
    );
  }
  if (plan.scope !== "code") {
    lines.push(
      plan.conversation
        ? `  conversation: the next \`nudge claude run -r ${plan.sessionId}\` continues from claude's last reply in turn ${plan.conversation.turn}${plan.conversation.turn === plan.turn ? "" : ` (turn ${plan.turn} has no reply)`}, in a new fork; turns after it stay recorded`
        : `  conversation: the next \`nudge claude run -r ${plan.sessionId}\` starts a fresh conversation, in a new fork`,
    );
  }
  return lines;
}

/** The code part of a plan, one line per path. */
function codeLines(c: CodeChanges, state: string): string[] {
  if (c.write.length + c.remove.length + c.submodules.length === 0) return [`  code: already as ${state}, nothing to write`];
  return [
    ...c.write.map((p) => `  write   ${printablePath(p)}`),
    ...c.remove.map((p) => `  delete  ${printablePath(p)}`),
    ...c.submodules.map((s) =>
      s.commit
        ? `  submodule ${printablePath(s.path)}: recorded at ${short(s.commit)}; its files stay as they are (git -C ${printablePath(s.path)} checkout ${short(s.commit)} sets them)`
        : `  submodule ${printablePath(s.path)}: not in that turn; its files stay as they are`,
    ),
  ];
}

function short(commit: string | null): string {
  return commit ? commit.slice(0, 10) : "(none)";
}

/** What `rewind --undo` will do: put back the state the last rewind saved. */
export interface UndoPlan extends CodeChanges {
  /** The rewind being undone. */
  undo: RewindRecord;
  /** Edits made after the rewind, which the undo saves under a ref before overwriting them. */
  keepsEdits: boolean;
  /** Where HEAD moves back to, when that rewind moved it (--reset-head). */
  head: { branch: string | null; from: string | null; to: string } | null;
}

export function planUndo(record: RewindRecord, current: { tree: string; head: string | null }, changes: TreeChange[]): UndoPlan {
  const { before, after, backup } = record;
  return {
    undo: record,
    ...codeChanges(changes),
    keepsEdits: after !== null && current.tree !== after.tree && current.tree !== backup.tree,
    head: before.indexCopy && before.head ? { branch: before.branch, from: current.head, to: before.head } : null,
  };
}

/** The undo as lines a person reads (for --dry-run). */
export function describeUndo(plan: UndoPlan): string[] {
  const { undo } = plan;
  const lines = [`undo the rewind of session ${undo.sessionId} to turn ${undo.turn} (made ${undo.at})`, ...codeLines(plan, "before that rewind")];
  if (plan.keepsEdits) lines.push("  backup: edits made since that rewind are saved first, under refs/nudge/backup/");
  if (plan.head) lines.push(`  HEAD: ${plan.head.branch ?? "HEAD"} moves from ${short(plan.head.from)} back to ${short(plan.head.to)}, and the index is put back`);
  if (undo.scope !== "code") lines.push(`  conversation: session ${undo.sessionId} continues as before that rewind`);
  return lines;
}
