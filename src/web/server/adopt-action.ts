/** The page's Adopt: `session adopt` as a confirmed action on one of claude's own sessions. */
import { adoptOperation } from "../../live/adopt-operation.js";
import { findClaudeSession } from "../../live/claude-own-sessions.js";
import { claudeConfigDir } from "../../claude/transcript.js";
import { HttpError } from "./http-io.js";
import type { Action } from "./confirm-action.js";
import { heldClaudeIds } from "../../live/held-claude-ids.js";
import type { Store } from "../../store/store.js";

export const adoptAction: Action<Record<string, never>> = {
  fields: {},
  async run({ store }, id, _input, decide) {
    const session = await findClaudeSession(store, id);
    if (!session)
      throw (
        (await heldByNudge(store, id, 409)) ??
        new HttpError(404, `no session of claude's own matches "${id}"`, "adopted already? the sessions page lists it")
      );
    await decide(adoptOperation(store, session, { claudeConfigDir: claudeConfigDir() }), (adopted) => ({
      done: [
        `adopted claude's session ${session.id} as nudge session ${adopted.id}: ${adopted.turns} turn${adopted.turns === 1 ? "" : "s"} of its conversation`,
        "its code state is the work tree as it is now (turn 0)",
      ],
      session: adopted.id,
    }));
  },
};

/**
 * The answer for a claude id nudge holds (adopted, or recorded) where claude's own session was
 * asked for: which nudge session it is now (`heldBy`, which the page links to); null when it holds
 * none the id names alone.
 */
export async function heldByNudge(store: Store, id: string, status: 404 | 409): Promise<HttpError | null> {
  const held = (await heldClaudeIds(store, id)).matches;
  const claude = [...new Set(held.map((h) => h.claude))];
  if (claude.length !== 1) return null;
  const sessions = held.map((h) => h.nudge);
  return new HttpError(
    status,
    `claude's session ${claude[0]} is nudge's ${status === 409 ? "already" : "now"}: nudge session ${sessions.join(", ")} (recorded or adopted)`,
    `open it: /s/${sessions[0]}`,
    { claudeId: claude[0], heldBy: sessions },
  );
}
