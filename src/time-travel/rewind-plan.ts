/**
 * What a rewind will do, computed before anything is touched: files to write and delete, whether
 * unsaved work gets backed up, what happens to HEAD and to the conversation. Pure: the facts come
 * in, the plan (or a refusal) comes out, so --dry-run and the tests need no disk.
 */
import { UserError } from "../errors.js";
import type { Manifest } from "../bundle/manifest-schema.js";
import { resumePoint, turnOf } from "../bundle/turn-lookup.js";
import { displayPath, isSubmodule, printablePath, type TreeChange } from "../snapshot/git.js";

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

export interface RewindPlan {
  sessionId: string;
  turn: number;
  scope: RewindScope;
  target: { tree: string; commit: string };
  current: { tree: string; head: string | null; branch: string | null };
  write: string[];
  remove: string[];
  /** Submodules whose recorded commit differs: recorded only, their work trees stay as they are. */
  submodules: Array<{ path: string; commit: string | null }>;
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
  const withCode = f.scope !== "conversation";
  const files = f.changes.filter((c) => !isSubmodule(c));
  return {
    sessionId: f.manifest.id,
    turn: f.turn,
    scope: f.scope,
    target: { tree: turn.snapshot.tree, commit: turn.snapshot.commit },
    current: f.current,
    write: withCode ? files.filter((c) => c.status !== "D").map((c) => displayPath(c.path)) : [],
    remove: withCode ? files.filter((c) => c.status === "D").map((c) => displayPath(c.path)) : [],
    submodules: withCode
      ? f.changes.filter(isSubmodule).map((c) => ({ path: displayPath(c.path), commit: c.mode === "160000" ? c.blob : null }))
      : [],
    unsavedWork: f.current.tree !== latest.snapshot.tree,
    head: { recorded: turn.head, current: f.current.head, differs: headDiffers, reset: f.resetHead && headDiffers },
    conversation: f.scope === "code" ? null : resumePoint(f.manifest, f.turn),
  };
}

/** The plan as lines a person reads (for --dry-run, and before asking for confirmation). */
export function describePlan(plan: RewindPlan): string[] {
  const lines = [`rewind session ${plan.sessionId} to turn ${plan.turn}`];
  if (plan.scope !== "conversation") {
    if (plan.write.length + plan.remove.length + plan.submodules.length === 0) lines.push("  code: already as at that turn, nothing to write");
    for (const p of plan.write) lines.push(`  write   ${printablePath(p)}`);
    for (const p of plan.remove) lines.push(`  delete  ${printablePath(p)}`);
    for (const s of plan.submodules) {
      lines.push(
        s.commit
          ? `  submodule ${printablePath(s.path)}: recorded at ${s.commit.slice(0, 10)}; its files stay as they are (git -C ${printablePath(s.path)} checkout ${s.commit.slice(0, 10)} sets them)`
          : `  submodule ${printablePath(s.path)}: not in that turn; its files stay as they are`,
      );
    }
    lines.push(
      plan.unsavedWork
        ? "  backup: the work tree has changes not in any snapshot; they are saved first (undo: nudge session rewind --undo)"
        : "  backup: the current state is saved first (undo: nudge session rewind --undo)",
    );
  }
  if (plan.head.differs) {
    const short = (c: string | null) => (c ? c.slice(0, 10) : "(none)");
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
