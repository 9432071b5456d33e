/**
 * A session's turn by number, or the one error every command gives for a turn that is not
 * there: which turns there are, and where to see them.
 */
import { UserError } from "../errors.js";
import type { Manifest, Turn } from "./manifest-schema.js";

/** Turn `n` of the session; `first` is 1 where turn 0 (the starting state) does not apply. */
export function turnOf(manifest: Manifest, n: number, first: 0 | 1 = 0): Turn {
  const turn = n >= first ? manifest.turns.find((t) => t.n === n) : undefined;
  if (turn) return turn;
  const last = manifest.turns.at(-1)?.n ?? 0;
  const range = last < first ? "it has no turns yet" : `its turns are ${first} to ${last}`;
  throw new UserError(`session ${manifest.id} has no turn ${n}`, `${range}; nudge session show ${manifest.id} lists them`);
}
