/** The page's Adopt: `session adopt` as a confirmed action on one of claude's own sessions. */
import { adoptOperation } from "../../live/adopt-operation.js";
import { findClaudeSession } from "../../live/claude-own-sessions.js";
import { claudeConfigDir } from "../../claude/transcript.js";
import { HttpError } from "./http-io.js";
import type { Action } from "./confirm-action.js";

export const adoptAction: Action<Record<string, never>> = {
  fields: {},
  async run({ store }, id, _input, decide) {
    const session = await findClaudeSession(store, id);
    if (!session)
      throw new HttpError(
        404,
        `no session of claude's own matches "${id}"`,
        "adopted already? the sessions page lists it",
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
