/**
 * A session's snapshot chain read back as turns: what `session repair` rebuilds a lost
 * turns.jsonl from. Every snapshot commit's message says what it is (turn-save.ts writes them):
 * `nudge <id> turn 0 (starting state)`, `nudge <id> your edits before turn N`, and
 * `nudge <id> turn N\n\n<prompt>` (snapshot-message.ts). Only the turn numbers count, not the id.
 */
import { UserError } from "../base/errors.js";
import type { ChainCommit } from "../snapshot/git.js";
import { parseSnapshotMessage } from "../snapshot/snapshot-message.js";

export interface ChainTurn {
  n: number;
  /** The prompt as the commit message keeps it (null for turn 0). */
  prompt: string | null;
  commit: string;
  tree: string;
  /** When the snapshot was made (epoch seconds): close to the turn's end. */
  time: number;
  /** The user's edits before the turn, as their own snapshot. */
  edits: { commit: string; tree: string } | null;
  /** The tree of the turn before (turn 0: of the base commit): the edits' patch starts there, the turn's own from its edits, if any. */
  from: string;
}

/**
 * The turns of a chain, given parents first (git.commitChain from the session's ref, stopped at
 * its base commit). Refused when it is not one line of nudge's snapshots numbered 0, 1, 2, …:
 * rebuilding from anything else would be a guess.
 */
export function chainTurns(chain: ChainCommit[], ref: string, baseTree: string): ChainTurn[] {
  const turns: ChainTurn[] = [];
  let edits: ChainTurn["edits"] = null;
  let previous: string | null = null;
  for (const c of chain) {
    const notOurs = (why: string) =>
      new UserError(
        `commit ${c.commit.slice(0, 10)} on ${ref} ${why}`,
        "the snapshot chain is not one nudge wrote; nothing was changed (git log " + ref + " shows it)",
      );
    if (previous !== null && c.parents[0] !== previous) throw notOurs("does not follow the one before it");
    if (c.parents.length > 1) throw notOurs("is a merge");
    previous = c.commit;
    const expected = turns.length;
    const said = parseSnapshotMessage(c.message);
    if (said?.kind === "edits") {
      if (said.n !== expected || edits)
        throw notOurs(`holds your edits before turn ${said.n} where turn ${expected} was expected`);
      edits = { commit: c.commit, tree: c.tree };
      continue;
    }
    if (!said) throw notOurs("is not a snapshot");
    if (said.n !== expected) throw notOurs(`is turn ${said.n} where turn ${expected} was expected`);
    const turn = { n: said.n, prompt: said.kind === "turn" ? said.prompt : null };
    const from = turns.at(-1)?.tree ?? baseTree;
    turns.push({ ...turn, commit: c.commit, tree: c.tree, time: Number(c.committerDate.split(" ")[0]), edits, from });
    edits = null;
  }
  if (edits)
    throw new UserError(
      `${ref} ends in your edits before a turn, not in a turn`,
      "the snapshot chain is not one nudge wrote; nothing was changed",
    );
  return turns;
}
