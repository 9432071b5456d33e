/**
 * Where turn N ends in claude's transcript, for an export cut at N (--upto). The length the
 * turn recorded is read when the turn is saved; with prompts piped or typed ahead, claude has by
 * then often begun the next turn (its `queue-operation` of the next prompt, the prompt, even the
 * reply), so that length can run into turn N+1. The turn's own end is found instead: after its
 * last assistant line, the first line that begins another turn (a queued or sent prompt).
 */
import { promises as fs } from "node:fs";
import { FileLine, type LineBytes } from "../claude/long-line.js";
import { BoundedLineFramer, LARGE_LINE_BYTES, reduceLongStrings, type LongLine } from "../claude/ndjson.js";
import { HUGE_LINE, skeletonOf } from "../secrets/huge-line.js";

/** The offset where the next turn begins within [0, limit), or `limit` when none does (or the turn's last line is not found). */
export async function turnEnd(file: string, lastAssistantUuid: string | null, limit: number): Promise<number> {
  if (!lastAssistantUuid || limit === 0) return limit;
  const marker = Buffer.from(`"uuid":"${lastAssistantUuid}"`);
  const handle = await fs.open(file, "r");
  // A huge line (a 50 MB Write) is looked at a window at a time, never held whole.
  const framer = new BoundedLineFramer(HUGE_LINE);
  let offset = 0;
  let after = false;
  let end: number | null = null;
  const look = (found: Buffer | LongLine) => {
    const line = Buffer.isBuffer(found) ? found : new FileLine(handle.fd, found);
    const start = offset;
    offset += line.length + 1;
    if (end !== null) return;
    if (!after) {
      after = line.includes(marker);
      return;
    }
    if (beginsTurn(line)) end = start;
  };
  try {
    for await (const chunk of handle.createReadStream({ start: 0, end: limit - 1, autoClose: false })) {
      framer.push(chunk as Buffer, look);
      if (end !== null) break;
    }
    if (end === null) framer.end(look);
  } finally {
    await handle.close();
  }
  return end ?? limit;
}

/** What begins a turn is in a line's keys, not its long strings (a Write's content): those are cut or emptied first. */
function shapeOf(line: Buffer | LineBytes): string | null {
  if (!Buffer.isBuffer(line)) return skeletonOf(line);
  return (line.length > LARGE_LINE_BYTES ? reduceLongStrings(line) : line)?.toString("utf8") ?? null;
}

/** A prompt queued for claude, a user line that is a prompt (not a tool's result), or another reply. */
function beginsTurn(line: Buffer | LineBytes): boolean {
  let parsed: {
    type?: unknown;
    operation?: unknown;
    isMeta?: unknown;
    message?: { content?: unknown };
    toolUseResult?: unknown;
  };
  try {
    parsed = JSON.parse(shapeOf(line) ?? "") as typeof parsed;
  } catch {
    return false;
  }
  if (parsed.type === "queue-operation") return parsed.operation === "enqueue";
  // Turn N's last reply is behind: any later reply is another turn's (claude may log the next
  // prompt before that reply, when it was queued while turn N ran).
  if (parsed.type === "assistant") return true;
  if (parsed.type !== "user" || parsed.toolUseResult !== undefined || parsed.isMeta === true) return false;
  const content = parsed.message?.content;
  return (
    typeof content === "string" ||
    (Array.isArray(content) && !content.some((c: { type?: unknown }) => c?.type === "tool_result"))
  );
}
