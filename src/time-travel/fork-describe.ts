/** A fork's plan and outcome in words, the same from the CLI and from the web page. */
import { shellQuote } from "../base/shell-quote.js";
import type { ForkOutcome } from "./fork-session.js";

/** A fork into a new worktree, before it is made (its --dry-run). */
export function describeWorktreeFork(sourceId: string, turn: number, plan: { root: string; commit: string }): string[] {
  return [
    `fork session ${sourceId} at turn ${turn} into a new git worktree at ${plan.root} (detached at ${plan.commit.slice(0, 10)}, then turn ${turn}'s code)`,
    "  nothing of yours is touched",
  ];
}

/** A fork made: where its code is, what was saved first, and the line to continue it. */
export function describeForked(sourceId: string, fork: ForkOutcome, inWorktree: boolean): string[] {
  return [
    `forked ${sourceId} at turn ${fork.turn} → ${fork.manifest.id}`,
    `code of turn ${fork.turn} is in ${fork.codeAt}${fork.rewind ? ` (previous state saved: ${fork.rewind.backup.ref}; undo: nudge session rewind --undo)` : ""}`,
    // A line to paste: the path is quoted so a space or `$(…)` in it cannot split or run anything.
    `continue it: ${inWorktree ? `cd ${shellQuote(fork.codeAt)} && ` : ""}nudge claude run -r ${shellQuote(fork.manifest.id)}`,
  ];
}
