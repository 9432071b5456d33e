/**
 * Adopting one of claude's own sessions as an operation (plan, describe, fingerprint, apply), so a
 * frontend that confirms (the page) shows what will happen and applies it only if claude's
 * transcript is still the one the plan was made from.
 */
import { stat } from "node:fs/promises";
import type { Operation } from "../base/operation.js";
import type { Store } from "../store/store.js";
import { adoptClaudeSession, mayBeLive, type Adopted } from "./adopt-session.js";
import { describeOtherProject, otherProjectOf, type ClaudeSession } from "./claude-own-sessions.js";

interface AdoptPlan {
  claudeId: string;
  size: number;
  mtimeMs: number;
  turns: number | null;
  repoRoot: string;
  /** Where it ran when that is another project: the plan says so. */
  elsewhere: string | null;
  /** claude wrote to it moments ago: it may still be running it. */
  live: string | null;
}

export function adoptOperation(
  store: Store,
  session: ClaudeSession,
  o: { claudeConfigDir: string },
): Operation<AdoptPlan, Adopted> {
  return {
    async prepare() {
      const s = await stat(session.file);
      const other = await otherProjectOf(store, session);
      return {
        claudeId: session.id,
        size: s.size,
        mtimeMs: s.mtimeMs,
        turns: session.turns,
        repoRoot: store.repoRoot,
        elsewhere: other && `${describeOtherProject(other)}; it is adopted into ${store.repoRoot}`,
        live: mayBeLive(s.mtimeMs),
      };
    },
    describe: (p) => [
      `make claude's session ${p.claudeId} a nudge session of ${p.repoRoot}: its whole conversation (${p.turns === null ? "every turn" : `${p.turns} turn${p.turns === 1 ? "" : "s"}`}), resumable`,
      "its code state is the work tree as it is now (turn 0): claude's changes in those turns were never recorded, so no diff shows them and a rewind to them restores the work tree of now",
      ...(p.elsewhere ? [p.elsewhere] : []),
      ...(p.live ? [p.live] : []),
      "claude's own files are only read",
    ],
    question: () => "Adopt it?",
    fingerprint: (p) => [p.claudeId, p.size, p.mtimeMs],
    watches: "claude's transcript",
    apply: () => adoptClaudeSession(store, session, o),
  };
}
