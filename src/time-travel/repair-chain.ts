/**
 * A session's snapshot chain read back as turns: what `session repair` rebuilds a lost
 * turns.jsonl from. Every snapshot commit's message says what it is (turn-save.ts writes them):
 * `nudge <id> turn 0 (starting state)`, `nudge <id> your edits before turn N`, and
 * `nudge <id> turn N\n\n<prompt>`. The id may be another session's (a fork shares its parent's
 * commits, an import keeps the exporter's), so only the turn numbers count.
 */
import { UserError } from "../errors.js";
import type { ChainCommit } from "../snapshot/git.js";

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

const ID = "[0-9a-z]{8,32}";
const START = new RegExp(`^nudge ${ID} turn 0 \\(starting state\\)\\n?$`);
const TURN = new RegExp(`^nudge ${ID} turn ([1-9]\\d{0,8})\\n\\n([\\s\\S]*)$`);
const EDITS = new RegExp(`^nudge ${ID} your edits before turn ([1-9]\\d{0,8})\\n?$`);

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
      new UserError(`commit ${c.commit.slice(0, 10)} on ${ref} ${why}`, "the snapshot chain is not one nudge wrote; nothing was changed (git log " + ref + " shows it)");
    if (previous !== null && c.parents[0] !== previous) throw notOurs("does not follow the one before it");
    if (c.parents.length > 1) throw notOurs("is a merge");
    previous = c.commit;
    const expected = turns.length;
    const editsOf = EDITS.exec(c.message);
    if (editsOf) {
      if (Number(editsOf[1]) !== expected || edits) throw notOurs(`holds your edits before turn ${editsOf[1]} where turn ${expected} was expected`);
      edits = { commit: c.commit, tree: c.tree };
      continue;
    }
    const turn = START.test(c.message) ? { n: 0, prompt: null } : turnOf(TURN.exec(c.message));
    if (!turn) throw notOurs("is not a snapshot");
    if (turn.n !== expected) throw notOurs(`is turn ${turn.n} where turn ${expected} was expected`);
    const from = turns.at(-1)?.tree ?? baseTree;
    turns.push({ ...turn, commit: c.commit, tree: c.tree, time: Number(c.committerDate.split(" ")[0]), edits, from });
    edits = null;
  }
  if (edits) throw new UserError(`${ref} ends in your edits before a turn, not in a turn`, "the snapshot chain is not one nudge wrote; nothing was changed");
  return turns;
}

function turnOf(m: RegExpExecArray | null): { n: number; prompt: string } | null {
  return m ? { n: Number(m[1]), prompt: m[2]! } : null;
}
