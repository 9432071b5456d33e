/**
 * What a rewind (or its undo) will do, computed before anything is touched: files to write and
 * delete — the user's own unsaved files named apart —, what is backed up, what happens to HEAD
 * and to the conversation. Pure: the facts come in, the plan (or a refusal) comes out. Every check
 * the apply makes is made here, so a --dry-run never promises what the apply would refuse.
 */
import { UserError } from "../base/errors.js";
import type { Manifest } from "../store/manifest-schema.js";
import { resumePoint, turnOf } from "../store/turn-lookup.js";
import { isSubmodule, printablePath, textPath, type TreeChange } from "../snapshot/git.js";
import type { RewindRecord } from "./rewind-log.js";
import { unsafeSwitch } from "./work-tree-switch.js";

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
  /** Paths (bytes) where the work tree differs from the session's latest snapshot: the user's own, in no snapshot. */
  userChanges: Set<string>;
  /** Paths (bytes) the user changed by hand after the target turn, recorded as their edits between turns (in snapshots, but theirs). */
  recordedEdits?: Set<string>;
  /** Paths (bytes) the target's ignore rules ignore: a deletion of one leaves it on disk, as it was then. */
  ignoredAtTarget: Set<string>;
  /** Ignored files of the user's standing where the target has a file (no snapshot holds them). */
  inTheWay: string[];
  /** Paths that are a submodule on one side and a file or folder on the other. */
  submoduleSwaps: string[];
  /** Is HEAD still on the session's history: the turn's recorded HEAD an ancestor of HEAD now? */
  headOnHistory: boolean;
  /** Files left as they are because a turn after the target shared the work tree with another recording. */
  shared?: SharedFiles | null;
  /** HEAD now against the turn's: ahead (commits made since), behind (a clone that lacks its later commits), apart (neither), null when the same or unknown. */
  headRelation?: "ahead" | "behind" | "apart" | null;
}

/** Files of turns that ran while another recording shared the work tree: kept as they are, unless --include-shared. */
export interface SharedFiles {
  /** The target's tree with these files as they are now: what the rewind puts in place. */
  tree: string;
  paths: string[];
  sessions: string[];
  turns: number[];
}

/** Whether a tree is one of the session's snapshots: a work tree rewound to a turn holds nothing of the user's. */
export function isSnapshotOf(manifest: Manifest, tree: string): boolean {
  return manifest.turns.some((t) => t.snapshot.tree === tree);
}

/** What switching the work tree does to it: the files written and deleted, and the submodules left alone. */
export interface CodeChanges {
  write: string[];
  remove: string[];
  /**
   * Of those, the user's own changes that no snapshot holds (the backup keeps them); `restore`:
   * the files of `write` the user deleted, which the switch brings back rather than overwrites.
   */
  yours: { write: string[]; remove: string[]; restore: string[] };
  /** Of `write` and `remove`, files the user changed by hand between turns (recorded as their edits): named as theirs. */
  yourRecorded: string[];
  /** Deletions left undone: the files were ignored at that turn, so they stay on disk. */
  keep: string[];
  /** Submodules whose recorded commit differs: recorded only, their work trees stay as they are. */
  submodules: Array<{ path: string; commit: string | null }>;
}

export function codeChanges(
  changes: TreeChange[],
  userChanges = new Set<string>(),
  keep = new Set<string>(),
  recordedEdits = new Set<string>(),
): CodeChanges {
  const files = changes.filter((c) => !isSubmodule(c));
  const written = files.filter((c) => c.status !== "D");
  const removed = files.filter((c) => c.status === "D" && !keep.has(c.path));
  const names = (list: TreeChange[]) => list.map((c) => textPath(c.path));
  return {
    write: names(written),
    remove: names(removed),
    yours: {
      write: names(written.filter((c) => userChanges.has(c.path))),
      remove: names(removed.filter((c) => userChanges.has(c.path))),
      restore: names(written.filter((c) => userChanges.has(c.path) && c.status === "A")),
    },
    yourRecorded: names([...written, ...removed].filter((c) => recordedEdits.has(c.path) && !userChanges.has(c.path))),
    keep: names(files.filter((c) => c.status === "D" && keep.has(c.path))),
    submodules: changes
      .filter(isSubmodule)
      .map((c) => ({ path: textPath(c.path), commit: c.mode === "160000" ? c.blob : null })),
  };
}

export interface RewindPlan extends CodeChanges {
  sessionId: string;
  turn: number;
  scope: RewindScope;
  target: { tree: string; commit: string };
  current: { tree: string; head: string | null; branch: string | null };
  /** The work tree is none of the session's snapshots: it holds something of the user's (saved first). */
  unsavedWork: boolean;
  head: {
    recorded: string | null;
    current: string | null;
    differs: boolean;
    reset: boolean;
    relation: "ahead" | "behind" | "apart" | null;
  };
  /** An imported session: files of its snapshots missing here were never here, not deleted by you. */
  imported: boolean;
  /** The branch the session was recorded on, when HEAD is now on another one (or detached). */
  otherBranch: { recorded: string | null; current: string | null } | null;
  /** Where the conversation resumes (null: the code alone is rewound, or there is no reply to resume from). */
  conversation: ReturnType<typeof resumePoint>;
  /** The conversation resumes at the session's last reply, where it already stands: the next run simply goes on, no fork. */
  conversationInPlace: boolean;
  /** Kept as they are: changed in turns another recording shared (see SharedFiles). */
  shared: SharedFiles | null;
}

export function planRewind(f: RewindFacts): RewindPlan {
  const turn = turnOf(f.manifest, f.turn);
  const latest = f.manifest.turns.at(-1)!;
  const withCode = f.scope !== "conversation";
  if (withCode) refuseUnsafeSwitch(f, `turn ${f.turn}`);
  const headDiffers = turn.head !== f.current.head;
  const recordedBranch = f.manifest.repo.branch;
  const otherBranch =
    recordedBranch !== f.current.branch ? { recorded: recordedBranch, current: f.current.branch } : null;
  if (f.resetHead && headDiffers) refuseResetHead(f, turn.head, otherBranch);
  const conversation = f.scope === "code" ? null : resumePoint(f.manifest, f.turn);
  return {
    sessionId: f.manifest.id,
    turn: f.turn,
    scope: f.scope,
    target: { tree: withCode && f.shared ? f.shared.tree : turn.snapshot.tree, commit: turn.snapshot.commit },
    current: f.current,
    ...codeChanges(withCode ? f.changes : [], f.userChanges, f.ignoredAtTarget, f.recordedEdits),
    unsavedWork: !isSnapshotOf(f.manifest, f.current.tree),
    head: {
      recorded: turn.head,
      current: f.current.head,
      differs: headDiffers,
      reset: f.resetHead && headDiffers,
      relation: f.headRelation ?? null,
    },
    imported: Boolean(f.manifest.origin),
    otherBranch,
    conversation,
    conversationInPlace: conversation !== null && conversation.turn === latest.n,
    shared: withCode ? (f.shared ?? null) : null,
  };
}

/** HEAD worded for the clone the rewind runs in: a clone behind the recorded HEAD has nothing to move back. */
function headLine(plan: RewindPlan): string {
  const then = `${short(plan.head.recorded)} at turn ${plan.turn}`;
  if (plan.head.relation === "behind")
    return `  HEAD: ${short(plan.head.current)} here is behind ${then} (this clone lacks the commits made up to then); HEAD stays`;
  if (plan.head.relation === "apart")
    return `  HEAD: ${short(plan.head.current)} here is on another line of history than ${then}; HEAD stays`;
  return `  HEAD: commits were made since turn ${plan.turn} (${short(plan.head.recorded)} then, ${short(plan.head.current)} now); HEAD stays${plan.otherBranch ? "" : ", pass --reset-head to move it back"}`;
}

/** The checks the switch itself makes, made first: nothing is planned that would be refused later. */
function refuseUnsafeSwitch(f: Pick<RewindFacts, "inTheWay" | "submoduleSwaps">, what: string): void {
  const refusal = unsafeSwitch(what, f);
  if (refusal) throw refusal;
}

/**
 * --reset-head moves only the branch the session was recorded on, and only back along the
 * session's own history: a branch it never touched, or a HEAD that has left that history, is the
 * user's to move by hand.
 */
function refuseResetHead(f: RewindFacts, recorded: string | null, otherBranch: RewindPlan["otherBranch"]): void {
  if (!recorded)
    throw new UserError(
      `turn ${f.turn} was recorded before the repository's first commit`,
      "rewind without --reset-head",
    );
  if (otherBranch) {
    const there = otherBranch.recorded ? `on ${otherBranch.recorded}` : "on a detached HEAD";
    const here = otherBranch.current ? `on ${otherBranch.current}` : "detached";
    throw new UserError(
      `--reset-head moves only the branch the session was recorded on: it was recorded ${there}, HEAD is now ${here}; nothing was changed`,
      otherBranch.recorded
        ? `switch to it first (git switch ${otherBranch.recorded}), or move a branch by hand: git reset --keep ${recorded}`
        : `move HEAD by hand: git reset --keep ${recorded}`,
    );
  }
  if (!f.headOnHistory) {
    throw new UserError(
      `--reset-head: HEAD (${short(f.current.head)}) is no longer on the session's history (turn ${f.turn} was at ${short(recorded)}); nothing was changed`,
      `move it by hand if you mean to: git reset --keep ${recorded}`,
    );
  }
}

/** The plan as lines a person reads (for --dry-run, and before asking for confirmation). */
export function describePlan(plan: RewindPlan, verb = "rewind"): string[] {
  // A fork starts a new session at the turn; a rewind takes this one back to it.
  const lines = [
    verb === "fork"
      ? `fork session ${plan.sessionId} at turn ${plan.turn}, its code put in place here`
      : `${verb} session ${plan.sessionId} to turn ${plan.turn}`,
  ];
  if (plan.scope !== "conversation") {
    lines.push(...codeLines(plan, "at that turn", plan.imported));
    if (plan.shared) {
      const who = `session${plan.shared.sessions.length === 1 ? "" : "s"} ${plan.shared.sessions.join(", ")}`;
      const when = `turn${plan.shared.turns.length === 1 ? "" : "s"} ${plan.shared.turns.join(", ")}`;
      lines.push(
        `  changed while ${who} also recorded here (${when}), so perhaps not by this session: kept as they are (nudge session rewind --include-shared rewinds them too):`,
      );
      lines.push(...plan.shared.paths.map((p) => `    keep    ${printablePath(p)}`));
    }
    // A fork whose code is already in place writes nothing, so it saves nothing either.
    const writesNothing = plan.write.length + plan.remove.length + plan.submodules.length + plan.keep.length === 0;
    if (!(verb === "fork" && writesNothing)) {
      lines.push(
        plan.unsavedWork
          ? "  backup: the work tree has changes not in any snapshot; they are saved first (undo: nudge session rewind --undo)"
          : "  backup: the current state is saved first (undo: nudge session rewind --undo)",
      );
    }
  }
  if (plan.otherBranch) {
    lines.push(
      `  branch: the session was recorded ${plan.otherBranch.recorded ? `on ${plan.otherBranch.recorded}` : "on a detached HEAD"}; you are ${plan.otherBranch.current ? `on ${plan.otherBranch.current}` : "on a detached HEAD"} (HEAD stays)`,
    );
  }
  if (plan.head.differs) {
    lines.push(
      plan.head.reset
        ? `  HEAD: ${plan.current.branch ?? "HEAD"} moves from ${short(plan.head.current)} back to ${short(plan.head.recorded)}; later commits stay reachable from the backup`
        : headLine(plan),
    );
  }
  if (plan.scope !== "code") {
    lines.push(
      plan.conversationInPlace
        ? `  conversation: turn ${plan.turn} is the session's last; the next \`nudge claude run -r ${plan.sessionId}\` goes on from there, in this session`
        : plan.conversation
          ? `  conversation: the next \`nudge claude run -r ${plan.sessionId}\` continues from claude's last reply in turn ${plan.conversation.turn}${plan.conversation.turn === plan.turn ? "" : ` (turn ${plan.turn} has no reply)`}, in a new fork; turns after it stay recorded`
          : `  conversation: the next \`nudge claude run -r ${plan.sessionId}\` starts a fresh conversation, in a new fork`,
    );
  }
  return lines;
}

/** The code part of a plan, one line per path; the user's own files under a heading of their own. */
function codeLines(c: CodeChanges, state: string, imported = false): string[] {
  if (c.write.length + c.remove.length + c.submodules.length + c.keep.length === 0)
    return [`  code: already as ${state}, nothing to write`];
  const yoursWrite = new Set([...c.yours.write, ...c.yourRecorded]);
  const yoursRemove = new Set([...c.yours.remove, ...c.yourRecorded]);
  // In the order the switch makes them: deletions first (a folder may give way to a file).
  const lines = [
    ...c.remove.filter((p) => !yoursRemove.has(p)).map((p) => `  delete  ${printablePath(p)}`),
    ...c.write.filter((p) => !yoursWrite.has(p)).map((p) => `  write   ${printablePath(p)}`),
  ];
  if (c.yourRecorded.length > 0) {
    // Claude Code's rewind leaves such files alone; nudge puts the turn back whole, and says whose they are.
    lines.push(
      "  yours: files you changed by hand between turns (recorded as your edits; the backup keeps them, undo brings them back):",
    );
    const removed = new Set(c.remove);
    lines.push(...c.yourRecorded.map((p) => `    ${removed.has(p) ? "delete " : "write  "}   ${printablePath(p)}`));
  }
  // A heading only over lines of its own (the files recorded as the user's are listed above).
  if (c.yours.write.length + c.yours.remove.length > 0) {
    lines.push(
      "  changes in none of this session's snapshots (your edits, or another session's work; the backup keeps them):",
    );
    const restore = new Set(c.yours.restore);
    lines.push(
      ...c.yours.remove.map((p) => `    delete     ${printablePath(p)}`),
      ...c.yours.write.map((p) =>
        restore.has(p)
          ? `    restore    ${printablePath(p)} (${imported ? "not in your work tree" : "you deleted it"})`
          : `    overwrite  ${printablePath(p)}`,
      ),
    );
  }
  lines.push(...c.keep.map((p) => `  keep    ${printablePath(p)} (ignored at that point, so it stays on disk)`));
  lines.push(
    ...c.submodules.map((s) =>
      s.commit
        ? `  submodule ${printablePath(s.path)}: recorded at ${short(s.commit)}; its files stay as they are (git -C ${printablePath(s.path)} checkout ${short(s.commit)} sets them)`
        : `  submodule ${printablePath(s.path)}: not in that turn; its files stay as they are`,
    ),
  );
  return lines;
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
  /** The rewound session was removed since: the files come back, there is no conversation to return to. */
  sessionGone: boolean;
  /** The fork the undone fork made was removed since (`session rm`): nothing of it stays recorded. */
  forkGone: boolean;
}

export function planUndo(
  record: RewindRecord,
  current: { tree: string; head: string | null },
  changes: TreeChange[],
  gone: { session: boolean; fork: boolean },
  checks: Pick<RewindFacts, "inTheWay" | "submoduleSwaps" | "userChanges">,
): UndoPlan {
  refuseUnsafeSwitch(checks, "the state before the rewind");
  const { before, after, backup } = record;
  return {
    undo: record,
    ...codeChanges(changes, checks.userChanges),
    keepsEdits: after !== null && current.tree !== after.tree && current.tree !== backup.tree,
    head: before.indexCopy && before.head ? { branch: before.branch, from: current.head, to: before.head } : null,
    sessionGone: gone.session,
    forkGone: gone.fork,
  };
}

/** The undo as lines a person reads (for --dry-run, and before asking). */
export function describeUndo(plan: UndoPlan): string[] {
  const { undo } = plan;
  const lines = [
    undo.fork
      ? `undo the fork of session ${undo.sessionId} at turn ${undo.turn} (made ${undo.at}; the fork ${undo.fork} ${plan.forkGone ? "was removed since" : "stays recorded"})`
      : `undo the rewind of session ${undo.sessionId} to turn ${undo.turn} (made ${undo.at})`,
    ...codeLines(plan, undo.fork ? "before that fork" : "before that rewind"),
  ];
  for (const file of undo.hidden)
    lines.push(`  write   ${printablePath(file.path)} (ignored, so in no snapshot; the rewind's record kept it)`);
  if (plan.keepsEdits) lines.push("  backup: edits made since that rewind are saved first, under refs/nudge/backup/");
  if (plan.head)
    lines.push(
      `  HEAD: ${plan.head.branch ?? "HEAD"} moves from ${short(plan.head.from)} back to ${short(plan.head.to)}, and the index is put back`,
    );
  if (plan.sessionGone)
    lines.push(`  conversation: session ${undo.sessionId} was removed since; only the files come back`);
  else if (undo.scope !== "code")
    lines.push(`  conversation: session ${undo.sessionId} continues as before that rewind`);
  return lines;
}

/** What an applied rewind did and how to go on, as the CLI and the web page say it. */
export function describeRewound(plan: RewindPlan, record: RewindRecord): string[] {
  const lines = [`rewound to turn ${plan.turn} · backup ${record.backup.ref} · undo: nudge session rewind --undo`];
  if (plan.scope !== "code") lines.push(`continue the conversation from there: nudge claude run -r ${plan.sessionId}`);
  return lines;
}
