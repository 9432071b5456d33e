/**
 * Claude's own UI writes no stream to nudge: a turn's lines are the part of claude's transcript
 * written since the previous turn's part, whole lines, kept as bytes. Where each claude session's
 * part ends is the transcript's length a saved turn copied (`transcriptBytes`); where the open
 * turn's part starts is kept in `claude-ui.json` in the session folder, so a nudge killed mid-turn
 * is caught up from the transcript by the next start.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../store/atomic-write.js";
import type { Manifest } from "../store/manifest-schema.js";
import { parseLine, splitLines } from "../claude/ndjson.js";
import { toStreamEvent } from "../claude/stream-events.js";
import { findTranscript } from "../claude/transcript.js";
import * as z from "../base/zod.js";

const OpenPart = z.object({
  claudeSessionId: z.string().check(z.regex(/^[A-Za-z0-9._-]{1,200}$/)),
  from: z.number().check(z.int(), z.nonnegative()),
});

const OPEN_PART_FILE = "claude-ui.json";

export class TranscriptTail {
  /** Bytes of each claude session's transcript already taken as a turn's lines. */
  private readonly taken = new Map<string, number>();

  constructor(
    private readonly dir: string,
    private readonly configDir: string,
    private readonly cwd: string,
    manifest: Manifest,
  ) {
    for (const t of manifest.turns)
      if (t.claudeSessionId && typeof t.transcriptBytes === "number")
        this.taken.set(t.claudeSessionId, t.transcriptBytes);
  }

  /**
   * A turn begins in claude session `id`. A session not seen before starts where its transcript is
   * now: a fork's new transcript opens with a copy of the history, which is no turn's.
   */
  async begin(id: string): Promise<void> {
    if (!this.taken.has(id)) this.taken.set(id, (await this.size(id)) ?? 0);
    await writeFileAtomic(
      path.join(this.dir, OPEN_PART_FILE),
      JSON.stringify({ claudeSessionId: id, from: this.taken.get(id) }),
    );
  }

  /** Where a claude session not seen before starts (its transcript's size when its prompt was noted). */
  startAt(id: string, from: number): void {
    if (!this.taken.has(id)) this.taken.set(id, from);
  }

  /** The open turn's part as an earlier process began it (installed hooks: one process per hook); its claude session, or null. */
  async reopen(): Promise<string | null> {
    const part = await readOpenPart(this.dir);
    if (part) this.taken.set(part.claudeSessionId, part.from);
    return part?.claudeSessionId ?? null;
  }

  /**
   * The whole lines claude wrote since the last part taken (none when its transcript is not found),
   * and where they end. `waitMs`: claude writes a turn's last lines after its Stop hook was called
   * (measured: the last message, then the turn's duration line), so a turn's end waits for that
   * line, this long at most.
   */
  async take(id: string, waitMs = 0, before?: number): Promise<{ lines: Buffer; upTo: number }> {
    const from = this.taken.get(id) ?? 0;
    const file = await findTranscript(this.configDir, this.cwd, id);
    if (!file) return { lines: Buffer.alloc(0), upTo: from };
    let lines = await wholeLinesFrom(file, from);
    // Only what claude wrote before a point (a prompt noted then, its turn begun later): whole lines.
    if (before !== undefined)
      lines = lines.subarray(0, lines.subarray(0, Math.max(0, before - from)).lastIndexOf(0x0a) + 1);
    for (const end = Date.now() + waitMs; !endsTurn(lines) && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 20));
      lines = await wholeLinesFrom(file, from);
    }
    this.taken.set(id, from + lines.length);
    return { lines, upTo: from + lines.length };
  }

  /** Lines past the last part taken, in the claude session the last turn ran in: turns claude ran while nudge was not recording. */
  async missed(id: string | null, before?: number): Promise<{ id: string; lines: Buffer; upTo: number } | null> {
    if (!id || !this.taken.has(id)) return null;
    const from = this.taken.get(id)!;
    const part = await this.take(id, 0, before);
    if (part.lines.length > 0 && holdsAnswer(part.lines)) return { id, ...part };
    // What claude writes after a turn and at its exit (costs, the /exit command) is the next turn's.
    this.taken.set(id, from);
    return null;
  }

  private async size(id: string): Promise<number | null> {
    const file = await findTranscript(this.configDir, this.cwd, id);
    return file ? (await fs.stat(file)).size : null;
  }
}

/** The open turn's part of the transcript, read at a start after nudge was killed mid-turn (SessionRecorder's catch-up). */
export async function openPartLines(
  dir: string,
  configDir: string,
  cwd: string,
  manifest: Manifest,
): Promise<Buffer | null> {
  if (!manifest.unsaved.some((u) => u.ended === null)) return null;
  const part = await readOpenPart(dir);
  if (!part) return null;
  const file = await findTranscript(configDir, cwd, part.claudeSessionId);
  return file ? wholeLinesFrom(file, part.from) : null;
}

async function readOpenPart(dir: string): Promise<z.infer<typeof OpenPart> | null> {
  try {
    return OpenPart.parse(JSON.parse(await fs.readFile(path.join(dir, OPEN_PART_FILE), "utf8")));
  } catch {
    return null; // not a session of claude's own UI, or it never began a turn
  }
}

/** What a turn nudge did not see was asked: the first prompt typed in its lines. */
export function firstPrompt(lines: Buffer): string | null {
  for (const line of splitLines(lines)) {
    const event = toStreamEvent(parseLine(line), "");
    if (event.type !== "user" || (event as { isMeta?: unknown }).isMeta) continue;
    const content = event.message.content;
    if (typeof content === "string" && !content.startsWith("<")) return content;
  }
  return null;
}

/** Did claude answer in these lines (an assistant message of the main conversation)? */
function holdsAnswer(lines: Buffer): boolean {
  return splitLines(lines).some((line) => {
    const event = toStreamEvent(parseLine(line), "");
    return event.type === "assistant" && (event as { isSidechain?: unknown }).isSidechain !== true;
  });
}

/**
 * Does the part hold the line claude writes last in a turn? In its UI, the turn's duration (after
 * the Stop hooks' summary). `claude -p` and the Agent SDK write no duration: there the summary of
 * the Stop hooks (nudge's own is one) is the last line of the turn, and its entrypoint says which
 * claude wrote it.
 */
export function endsTurn(lines: Buffer): boolean {
  for (const marker of TURN_ENDS) {
    for (let at = lines.indexOf(marker); at !== -1; at = lines.indexOf(marker, at + 1)) {
      const start = lines.lastIndexOf(0x0a, at) + 1;
      const end = lines.indexOf(0x0a, at);
      const event = parseLine(lines.subarray(start, end === -1 ? lines.length : end)) as {
        type?: unknown;
        subtype?: unknown;
        entrypoint?: unknown;
      } | null;
      if (event?.type !== "system") continue;
      if (event.subtype === "turn_duration") return true;
      if (
        event.subtype === "stop_hook_summary" &&
        typeof event.entrypoint === "string" &&
        /^sdk-/.test(event.entrypoint)
      )
        return true;
    }
  }
  return false;
}

const TURN_ENDS = [Buffer.from('"turn_duration"'), Buffer.from('"stop_hook_summary"')];

/** From `from` to the last newline: a line claude is still writing is the next part's. */
async function wholeLinesFrom(file: string, from: number): Promise<Buffer> {
  const handle = await fs.open(file, "r");
  try {
    const { size } = await handle.stat();
    if (size <= from) return Buffer.alloc(0);
    const buffer = Buffer.alloc(size - from);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    const end = buffer.subarray(0, bytesRead).lastIndexOf(0x0a);
    return buffer.subarray(0, end + 1);
  } finally {
    await handle.close();
  }
}
