/**
 * The page's side of a session this server drives (src/web/live/ on the server): its state, as
 * the server's `live` events and GET /api/live/<id> give it, and what the page sends.
 */
import { ApiError, getJson, postJson } from "./source.js";
import type { DrivenState, QuestionReply } from "../../live/live-types.js";
import { inRepo } from "./repo-base.js";

export type { PendingQuestion, QuestionReply } from "../../live/live-types.js";
export type LiveState = DrivenState;

const live = (id: string, what = "") => inRepo(`/api/live/${encodeURIComponent(id)}${what}`);

/** The state of a session this server drives; null when it drives none by that id. */
export async function liveState(id: string): Promise<LiveState | null> {
  try {
    return await getJson<LiveState | null>(live(id));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

export interface StartOptions {
  prompt: string;
  resume?: string;
  model?: string;
  permissionMode?: string;
  allowedTools?: string;
  disallowedTools?: string;
}

/** Start a session (or continue one: `resume`), answering with the id it records under (a rewound session continues in a fork). */
export async function startLive(o: StartOptions): Promise<{ id: string }> {
  const started = await postJson<{ id: string }>(inRepo("/api/live"), o);
  remember(started.id);
  return started;
}

// The ids this tab started: only for those is a missing session worth asking the live state about
// (a claude that refused to start leaves no session, only its reason); any other is simply not there.
const STARTED = "nudge-started";

function remember(id: string): void {
  try {
    const ids = (sessionStorage.getItem(STARTED) ?? "").split(" ").filter(Boolean).slice(-50);
    sessionStorage.setItem(STARTED, [...ids, id].join(" "));
  } catch {
    // No storage (a locked-down browser): a refusal is then said without its reason.
  }
}

export function startedHere(id: string): boolean {
  try {
    return (sessionStorage.getItem(STARTED) ?? "").split(" ").includes(id);
  } catch {
    return false;
  }
}
export const sendPrompt = (id: string, text: string) => postJson<LiveState>(live(id, "/prompt"), { text });
export const answerQuestion = (id: string, question: number, reply: QuestionReply) =>
  postJson<LiveState>(live(id, "/answer"), { question, reply });
export const stopTurn = (id: string) => postJson<{ state: string }>(live(id, "/stop"), {});
export const endSession = (id: string) => postJson<LiveState>(live(id, "/end"), {});
