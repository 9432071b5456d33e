/**
 * Where the turns of claude's own transcript begin: at each prompt the user typed (a `user` record
 * of the main conversation that is no tool result, no text claude adds for itself, no compaction
 * summary). Lines before the first prompt (claude's queue bookkeeping) go with the first turn.
 */
import { LARGE_LINE_BYTES, parseEventLine, parseLine } from "./ndjson.js";
import type { TranscriptLine } from "./transcript-lines.js";

/** The prompt a record holds, or null when it is none (any other record, a tool result, claude's own text). */
export function promptOf(json: unknown): string | null {
  if (json === null || typeof json !== "object") return null;
  const r = json as {
    type?: unknown;
    isSidechain?: unknown;
    isMeta?: unknown;
    isCompactSummary?: unknown;
    message?: { content?: unknown };
  };
  if (r.type !== "user" || r.isSidechain === true || r.isMeta === true || r.isCompactSummary === true) return null;
  const content = r.message?.content;
  let text: string;
  if (typeof content === "string") text = content;
  else if (Array.isArray(content) && !content.some((b) => (b as { type?: unknown } | null)?.type === "tool_result")) {
    text = content
      .map((b) => b as { type?: unknown; text?: unknown } | null)
      .filter((b) => b?.type === "text" && typeof b.text === "string")
      .map((b) => b!.text as string)
      .join("\n");
    if (text === "" && content.some((b) => (b as { type?: unknown } | null)?.type === "image")) text = "[image]";
  } else return null;
  const trimmed = text.trim();
  // A slash command typed in claude's UI is a turn of its own, named by the command.
  const command = /^<command-name>([^<]*)<\/command-name>/.exec(trimmed);
  if (command) return command[1]!.trim();
  // claude's own messages in the user's place (command output, task notifications, interrupts): no prompt.
  if (/^<([a-z][a-z-]*)>[\s\S]*<\/\1>$/.test(trimmed) || /^\[Request interrupted by user[^\]]*\]$/.test(trimmed))
    return null;
  return trimmed === "" ? null : text;
}

/** A record's time (epoch ms), or null. */
export function timeOf(json: unknown): number | null {
  const t = (json as { timestamp?: unknown } | null)?.timestamp;
  if (typeof t !== "string") return null;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : null;
}

export interface TranscriptTurn {
  n: number;
  prompt: string | null;
  lines: Array<TranscriptLine & { time: number | null }>;
  startedAt: number | null;
  endedAt: number | null;
}

/** The transcript's lines cut into turns at its prompts. */
export function transcriptTurns(lines: TranscriptLine[]): TranscriptTurn[] {
  const turns: TranscriptTurn[] = [];
  let open: TranscriptTurn | null = null;
  let loose: TranscriptTurn["lines"] = [];
  for (const line of lines) {
    const json = parseEventLine(line.bytes);
    const time = timeOf(json);
    let prompt = promptOf(json);
    // A long line is parsed with its strings cut at 16 KB: a prompt written as one string is read whole.
    if (prompt !== null && line.bytes.length > LARGE_LINE_BYTES) prompt = promptOf(parseLine(line.bytes)) ?? prompt;
    if (prompt !== null) {
      open = { n: turns.length + 1, prompt, lines: [...loose], startedAt: time, endedAt: time };
      loose = [];
      turns.push(open);
    }
    const timed = { ...line, time };
    if (open) {
      open.lines.push(timed);
      if (time !== null) open.endedAt = Math.max(open.endedAt ?? time, time);
    } else loose.push(timed);
  }
  // A transcript with no prompt at all (damaged, or only bookkeeping) is one turn without one.
  if (turns.length === 0 && loose.length > 0)
    turns.push({ n: 1, prompt: null, lines: loose, startedAt: null, endedAt: null });
  else if (open && loose.length) open.lines.push(...loose);
  return turns;
}
