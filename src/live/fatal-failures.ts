/**
 * Turn failures no further prompt can fix (a rejected API key, a rate limit that outlasted
 * claude's retries, a conversation that cannot be resumed, a claude that will not start): the
 * session stops with a hint instead of taking prompts that would fail the same way.
 */
import type { Turn } from "../store/manifest-schema.js";
import { UserError } from "../base/errors.js";
import type { ClaudeExit } from "../claude/claude-process.js";
import type { ClaudeLink } from "./claude-link.js";

export interface TurnFailure {
  text: string;
  status: number | null;
}

/** Follow a recording's stream for failures; a 401 stops the turn at once (claude would retry it for minutes). */
export function watchForFatal(link: ClaudeLink, onFailure: (failure: TurnFailure) => void): void {
  link.recorder.listen({
    event: (event) => {
      if (event.type === "result" && event.is_error) {
        onFailure({ text: event.result ?? (event.errors ?? []).join("; "), status: event.api_error_status ?? null });
      }
      // claude retries a 401 ten times over ~3 minutes; a bad key will not get better, so stop now.
      if (
        event.type === "system" &&
        event.subtype === "api_retry" &&
        (event.error_status === 401 || event.error_status === 403)
      ) {
        onFailure({ text: String(event.error ?? "authentication failed"), status: event.error_status });
        link.interrupt();
      }
    },
  });
}

/**
 * `exit`: how the last claude process ended, when it did. One that exited with an error before
 * writing anything was given arguments it rejects; one killed by a signal (the OOM killer, a
 * kill) is not fatal: the next turn resumes the conversation in a new process.
 */
export function failOnFatal(turn: Turn, failure: TurnFailure, exit: ClaudeExit | null): void {
  if (!turn.result?.isError && turn.status !== "incomplete") return;
  const text = failure.text;
  const firstLine = text.split("\n")[0]!.slice(0, 200);
  if (/No conversation found/i.test(text)) {
    throw new UserError(
      `claude could not find the conversation to resume: ${firstLine}`,
      "its transcript is missing from this machine's claude config; start a new session with: nudge claude run",
    );
  }
  if (failure.status === 401 || failure.status === 403 || /authentication_failed|invalid api key|\/login/i.test(text)) {
    throw new UserError(
      `claude could not authenticate with the API (${firstLine})`,
      "set ANTHROPIC_API_KEY or run `claude /login`, then continue with: nudge claude run -c",
    );
  }
  if (failure.status === 429 || /rate.?limit/i.test(text)) {
    throw new UserError(
      `the API is rate limiting claude (${firstLine})`,
      "wait a minute, then continue with: nudge claude run -c",
    );
  }
  if (
    turn.status === "incomplete" &&
    turn.lines.from === turn.lines.to &&
    exit &&
    !exit.signal &&
    exit.exitCode !== 0
  ) {
    throw new UserError(
      `claude exited without answering${text ? `: ${text.split("\n").slice(-3).join(" ")}` : ""}`,
      "check what nudge passes on to claude (--permission-mode, --model, --allowed-tools, --claude-bin, anything after --) and that `claude -p hello` works on its own",
    );
  }
}
