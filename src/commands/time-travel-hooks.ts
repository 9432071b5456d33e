import type { Store } from "../bundle/store.js";
import type { OpenedSession } from "../recorder/open-session.js";
import type { LiveSession } from "../recorder/live-session.js";
import type { SlashHooks } from "../terminal/run-loop.js";

/** What `nudge claude run` borrows from the time-travel commands: forks and in-session /rewind, /fork. */
export interface TimeTravelHooks {
  forkAt?: (id: string, turn: number) => Promise<OpenedSession>;
  slash: (currentId: () => string, live: LiveSession) => SlashHooks | undefined;
}

export function timeTravelHooks(_store: Store): TimeTravelHooks {
  return { slash: () => undefined };
}
