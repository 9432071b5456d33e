/**
 * A turn that ended in an API error the next iteration would meet again: the request itself was
 * refused (HTTP 4xx: the prompt is too long, a model that does not exist, a bad request), not the
 * service being briefly unavailable (408, 429, 5xx, no connection: claude has retried those
 * already). Looping on would only grow the conversation and repeat the error until a guard blamed
 * "no file changed".
 */
import type { ResultEvent } from "../claude/stream-events.js";
import { visible } from "../base/inert-text.js";

export interface ApiFailure {
  status: number | null;
  /** claude's words for it ("Prompt is too long"). */
  text: string;
}

/** The failure a result reports, when the loop cannot go on past it; null otherwise. */
export function unfixableApiFailure(result: ResultEvent): ApiFailure | null {
  if (!result.is_error) return null;
  const status = typeof result.api_error_status === "number" ? result.api_error_status : null;
  const tooLong = result.terminal_reason === "prompt_too_long";
  const refused = status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429;
  if (!tooLong && !refused) return null;
  const text = (result.result ?? (result.errors ?? []).map(String).join("; ")).replace(/\s+/g, " ").trim();
  // claude's words, styled by the loop's summary: made visible first, as the renderer does with all of them.
  return { status, text: visible(text).slice(0, 200) };
}

/** What to do about it, for the loop's last lines. */
export function apiFailureHint(failure: ApiFailure, sessionId: string): string {
  if (/too long/i.test(failure.text))
    return `the conversation is too long for the model: go on in a compacted fork (nudge claude run -r ${sessionId}, then /compact), or start a new loop`;
  return "fix the request (the model, the flags after --), then run the loop again";
}
