/**
 * The reader's views of the sessions in a store, built from the same bundle layer the CLI reads
 * (src/bundle/*): the web server's routes and `session export --html` call these, the page renders
 * what they return.
 */
import type { Store } from "../bundle/store.js";
import type { DiffView, SessionListItem, SessionView, TurnView } from "./view-types.js";

/** Every readable session, the one used last first. */
export async function listSessionItems(_store: Store): Promise<SessionListItem[]> {
  throw new Error("not built yet");
}

/** One session's page: its summary and its turns' summaries (not their entries). */
export async function sessionView(_store: Store, _id: string): Promise<SessionView> {
  throw new Error("not built yet");
}

/** One turn: its entries and diff; `full` leaves long texts uncut. */
export async function turnView(_store: Store, _id: string, _n: number, _options: { full?: boolean } = {}): Promise<TurnView> {
  throw new Error("not built yet");
}

/** The code change between two turns of a session (from < to). */
export async function diffBetween(_store: Store, _id: string, _from: number, _to: number): Promise<DiffView> {
  throw new Error("not built yet");
}
