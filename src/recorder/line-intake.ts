/**
 * claude's lines as they come in: each kept in the log, read as an event, shown to the listeners
 * and to the open turn, whose result line ends it.
 */
import { toStreamEvent, type StreamEvent } from "../claude/stream-events.js";
import { lineText, parseEventLine } from "../claude/ndjson.js";
import { resultSummary, type TurnFollower } from "./turn-follower.js";
import { endTurn } from "./turn-end.js";
import type { RecorderState } from "./recorder-state.js";
import { CLAUDE_TURN_PROMPT, isTaskNotification } from "../claude/task-notification.js";
import { beginTurn } from "./open-turn.js";

export function handleLine(s: RecorderState, line: Buffer, n: number): void {
  const event = lineEvent(line);
  if (event.type === "invalid" && event.text.trim() !== "") {
    s.warn(`claude wrote a line that is not JSON (line ${n + 1}); kept as is`);
  }
  observeSession(s, event);
  if (startsClaudeTurn(s, event)) beginClaudeTurn(s);
  const open = s.open;
  if (open && open.follower.observe(event) && event.type === "result") {
    open.result = resultSummary(event, s.processCost);
    if (event.total_cost_usd !== undefined) s.processCost = event.total_cost_usd;
    endTurn(s, open);
  }
  for (const l of s.listeners) l.event?.(event, n);
}

/**
 * A background task ended between turns: claude answers it in a turn of its own, which its
 * result ends like any other. No edits are captured before it: what changed since the last turn
 * is the task's work (it ran after that turn's capture), so the turn's changes are claude's.
 */
function startsClaudeTurn(s: RecorderState, event: StreamEvent): boolean {
  if (isTaskNotification(event)) {
    if (!s.open) return true;
    // A task that ends during a turn is answered in it (at its next tool result) or, measured when
    // the turn ends first, in a turn of claude's right after its result: that one begins at its init.
    s.taskNotified = true;
    return false;
  }
  return !s.open && s.taskNotified && event.type === "system" && event.subtype === "init";
}

function beginClaudeTurn(s: RecorderState): void {
  const turn = beginTurn(s, CLAUDE_TURN_PROMPT, {});
  for (const l of s.listeners) l.claudeTurn?.(turn);
}

/** What the session as a whole learns from a line (claude's version and model). */
function observeSession(s: RecorderState, event: StreamEvent): void {
  if (event.type === "system" && event.subtype === "init") {
    const claude = {
      version: event.claude_code_version ?? s.manifest.claude.version,
      model: event.model ?? s.manifest.claude.model,
    };
    s.manifest = { ...s.manifest, claude };
  }
}

/** claude's transcript has no init line: its version is on every message, the model on each answer. */
function observeTranscript(s: RecorderState, event: StreamEvent): void {
  if (event.type !== "assistant" && event.type !== "user") return;
  const version = (event as { version?: unknown }).version;
  const model = event.type === "assistant" ? event.message.model : undefined;
  const claude = {
    version: typeof version === "string" && version.length <= 50 ? version : s.manifest.claude.version,
    model:
      typeof model === "string" && model !== "<synthetic>" && model.length <= 100 ? model : s.manifest.claude.model,
  };
  if (claude.version !== s.manifest.claude.version || claude.model !== s.manifest.claude.model)
    s.manifest = { ...s.manifest, claude };
}

/** Lines of claude's transcript, observed by the turn they belong to (none: the recovery's catch-up, before any turn). */
export function takeLines(s: RecorderState, lines: Buffer, follower?: TurnFollower): void {
  if (lines.length === 0) return;
  s.heardFromClaude = true;
  s.parts.log.appendStdout(lines, (line, n) => {
    const event = lineEvent(line);
    observeTranscript(s, event);
    follower?.observe(event);
    for (const l of s.listeners) l.event?.(event, n);
  });
}

/** A line of claude's as the event it is (one that is not JSON: its text, kept for the warning and the view). */
function lineEvent(line: Buffer): StreamEvent {
  const json = parseEventLine(line);
  return toStreamEvent(json, json === null ? lineText(line) : "");
}
