/**
 * A session's turn by number, or the one error every command gives for a turn that is not
 * there: which turns there are, and where to see them.
 */
import { UserError } from "../base/errors.js";
import type { Manifest, Turn } from "./manifest-schema.js";

/** The turn asked for is not in the session (the web API answers it with 404, as a missing session). */
export class NoSuchTurn extends UserError {}

/** Turn `n` of the session; `first` is 1 where turn 0 (the starting state) does not apply. */
export function turnOf(manifest: Manifest, n: number, first: 0 | 1 = 0): Turn {
  const turn = n >= first ? manifest.turns.find((t) => t.n === n) : undefined;
  if (turn) return turn;
  const last = manifest.turns.at(-1)?.n ?? 0;
  const range = last < first ? "it has no turns yet" : `its turns are ${first} to ${last}`;
  throw new NoSuchTurn(
    `session ${manifest.id} has no turn ${n}`,
    `${range}; nudge session show ${manifest.id} lists them`,
  );
}

/**
 * Where claude's memory stands at the end of turn `n`: its last reply at or before that turn.
 * A turn interrupted or cut off before claude answered has no reply of its own, so the memory is
 * that of the last turn that has one; with none at all, a resume starts a fresh conversation.
 */
export function resumePoint(
  manifest: Manifest,
  n: number,
): { claudeSessionId: string; atUuid: string; turn: number } | null {
  for (const turn of manifest.turns.filter((t) => t.n >= 1 && t.n <= n).reverse()) {
    if (turn.claudeSessionId && turn.lastAssistantUuid)
      return { claudeSessionId: turn.claudeSessionId, atUuid: turn.lastAssistantUuid, turn: turn.n };
  }
  return null;
}
