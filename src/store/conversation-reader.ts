/**
 * Reads a bundle's conversation back: claude's lines as written (bytes, never re-encoded; an image
 * stored apart put back in its place, image-store.ts), each with the time it arrived, grouped by
 * the turn that owns it. One turn is read from its byte range (conversation-pieces.ts: the piece
 * that holds it), so replaying turn 900 of a long session does not read the 899 before it.
 */
import { openBundleFile, readBundleFile } from "./bundle-links.js";
import { splitLines } from "../claude/ndjson.js";
import type { Manifest, PendingTurn, Turn } from "./manifest-schema.js";
import { expandLines } from "./image-store.js";
import { bundleFiles } from "./store.js";
import { readStream } from "./conversation-pieces.js";
import { LineReducer, type ReduceLimits, type SplitLine } from "./line-reducer.js";
import { streamRange } from "./stream-range.js";

export interface TimedLine {
  /** 0-based line number in its file. */
  n: number;
  bytes: Buffer;
  /** Arrival time (epoch ms), or null when the timing file has no usable entry for the line. */
  at: number | null;
  /** The line's length in its file, when that differs from `bytes` (images stored apart, image-store.ts). */
  stored?: number;
  /** Set when `bytes` is the line reduced (its long strings cut): where the whole line lies in its file. */
  whole?: { byte: number; length: number };
}

/** A run of lines: a saved turn's, an unsaved turn a crash left behind, or lines between turns. */
export interface TurnLines {
  turn: Turn | null;
  /** Set for the lines of a turn that was in flight when the session stopped and was never saved. */
  pending: { n: number; prompt: string } | null;
  lines: TimedLine[];
}

type Turns = Pick<Manifest, "turns" | "unsaved">;

/** Every line of conversation.jsonl with its time. */
export async function readConversation(dir: string): Promise<TimedLine[]> {
  const files = bundleFiles(dir);
  const times = parseTimes((await readIfExists(files.timing)).toString("utf8"));
  // splitLines keeps a last line without "\n" (claude killed mid-write): it is shown, not dropped.
  return expandLines(
    dir,
    splitLines(await readStream(dir, 0)).map((bytes, n) => ({ n, bytes, at: times[n] ?? null })),
  );
}

/**
 * Every line as readConversation reads them, read a piece at a time, each long one reduced
 * (line-reducer.ts): what a replay shows, in memory bounded by the short lines.
 */
export async function readConversationReduced(dir: string, limits: ReduceLimits): Promise<TimedLine[]> {
  const times = parseTimes((await readIfExists(bundleFiles(dir).timing)).toString("utf8"));
  const lines: SplitLine[] = [];
  const reducer = new LineReducer(limits, 0);
  for await (const chunk of streamRange(dir, 0, null)) reducer.push(chunk, (l) => lines.push(l));
  reducer.end((l) => lines.push(l));
  return expandLines(
    dir,
    lines.map((l, n) => timed(l, n, times[n] ?? null)),
  );
}

/** Where a run of lines starts or ends in conversation.jsonl: a line number, and its byte offset when known. */
export interface LinePoint {
  line: number;
  byte?: number;
}

/**
 * The lines from `from` up to `to` (the end of the file so far when null). Seeks to the start when
 * its byte offset is known: a live page asks for the turn in flight at every line claude writes.
 * `writing`: claude is writing to the file now, so a last line without its "\n" is not a line yet
 * (a crash's torn last line is one: it stays).
 */
export async function readLineSpan(
  dir: string,
  from: LinePoint,
  to: LinePoint | null,
  o: { writing: boolean },
): Promise<TimedLine[]> {
  const files = bundleFiles(dir);
  if (from.byte === undefined || (to !== null && to.byte === undefined))
    return (await readConversation(dir)).slice(from.line, to?.line);
  const bytes = await readStream(dir, from.byte, to === null ? null : Math.max(from.byte, to.byte!));
  const lines = splitLines(bytes);
  if (o.writing && to === null && bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) lines.pop();
  const times = await readTimes(files.timing, from.line, from.line + lines.length);
  return expandLines(
    dir,
    lines.map((b, i) => ({ n: from.line + i, bytes: b, at: times[i] ?? null })),
  );
}

/**
 * The same lines as readLineSpan, read a piece at a time, each line longer than `limits.lineBytes`
 * reduced (line-reducer.ts) and marked with where its whole lies: what a reader's view needs,
 * in memory bounded by the turn's short lines, whatever its long ones hold.
 */
export async function readLineSpanReduced(
  dir: string,
  from: LinePoint,
  to: LinePoint | null,
  o: { writing: boolean; limits: ReduceLimits },
): Promise<TimedLine[]> {
  if (from.byte === undefined || (to !== null && to.byte === undefined)) return readLineSpan(dir, from, to, o);
  const lines: SplitLine[] = [];
  const reducer = new LineReducer(o.limits, from.byte);
  for await (const chunk of streamRange(dir, from.byte, to === null ? null : Math.max(from.byte, to.byte!)))
    reducer.push(chunk, (l) => lines.push(l));
  // Claude is writing: a last line without its "\n" is not a line yet.
  if (!(o.writing && to === null)) reducer.end((l) => lines.push(l));
  const times = await readTimes(bundleFiles(dir).timing, from.line, from.line + lines.length);
  return expandLines(
    dir,
    lines.map((l, i) => timed(l, from.line + i, times[i] ?? null)),
  );
}

function timed(l: SplitLine, n: number, at: number | null): TimedLine {
  return l.reduced ? { n, bytes: l.bytes, at, whole: { byte: l.byte, length: l.length } } : { n, bytes: l.bytes, at };
}

/** input.jsonl as readInput reads it, each long line reduced as readLineSpanReduced reduces them. */
export async function readInputReduced(dir: string, limits: ReduceLimits): Promise<TimedLine[]> {
  const files = bundleFiles(dir);
  const times = parseTimes((await readIfExists(files.inputTiming)).toString("utf8"));
  const lines: SplitLine[] = [];
  const reducer = new LineReducer(limits, 0);
  const handle = await openBundleFile(files.input).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (handle) {
    try {
      for await (const chunk of handle.createReadStream({
        highWaterMark: 1 << 20,
        autoClose: false,
      }) as AsyncIterable<Buffer>)
        reducer.push(chunk, (l) => lines.push(l));
    } finally {
      await handle.close();
    }
  }
  reducer.end((l) => lines.push(l));
  return expandLines(
    dir,
    lines.map((l, n) => timed(l, n, times[n] ?? null)),
  );
}

/** input.jsonl: what nudge wrote to claude, each line with its time. */
export async function readInput(dir: string): Promise<TimedLine[]> {
  const files = bundleFiles(dir);
  const times = parseTimes((await readIfExists(files.inputTiming)).toString("utf8"));
  return expandLines(
    dir,
    splitLines(await readIfExists(files.input)).map((bytes, n) => ({ n, bytes, at: times[n] ?? null })),
  );
}

/**
 * How many lines conversation.jsonl must hold at least: every saved turn's range, and the lines
 * before a turn that was in flight. Fewer means the file was truncated or deleted.
 */
export function recordedLineCount(manifest: Turns): number {
  const saved = manifest.turns.reduce((most, turn) => Math.max(most, turn.lines.to), 0);
  return manifest.unsaved.reduce((most, u) => Math.max(most, u.ended?.toLine ?? u.fromLine), saved);
}

export function parseTimes(text: string): Array<number | null> {
  return text.split("\n").map((line) => {
    const value = Number(line.trim());
    return line.trim() !== "" && Number.isFinite(value) ? value : null;
  });
}

/**
 * Every line exactly once, in file order, cut at the turns' line ranges. Turn 0 (the starting
 * state) has no lines and is left out.
 */
export function groupByTurn(manifest: Turns, lines: TimedLine[]): TurnLines[] {
  type Span = { from: number; to: number; turn: Turn | null; pending: PendingTurn | null };
  const spans: Span[] = [
    ...manifest.turns
      .filter((t) => t.n > 0)
      .map((t) => ({ from: t.lines.from, to: t.lines.to, turn: t, pending: null })),
    ...manifest.unsaved.map((u) => ({ from: u.fromLine, to: u.ended?.toLine ?? Infinity, turn: null, pending: u })),
  ].sort((a, b) => a.from - b.from);
  const groups: TurnLines[] = [];
  let cursor = 0;
  const loose = (to: number) => {
    if (to > cursor) groups.push({ turn: null, pending: null, lines: lines.slice(cursor, to) });
    cursor = Math.max(cursor, to);
  };
  for (const [i, span] of spans.entries()) {
    loose(span.from);
    // A turn begun but not yet captured ends where the next begun turn starts (a waiting prompt goes at the result).
    const to = Math.min(span.to, spans[i + 1]?.from ?? Infinity, lines.length);
    groups.push({
      turn: span.turn,
      pending: span.pending && { n: span.pending.n, prompt: span.pending.prompt },
      lines: lines.slice(Math.max(cursor, span.from), to),
    });
    cursor = Math.max(cursor, to);
  }
  loose(lines.length);
  return groups;
}

async function readIfExists(file: string): Promise<Buffer> {
  try {
    return await readBundleFile(file);
  } catch (error) {
    // A session whose claude never wrote a line has no conversation yet: that is an empty one.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return Buffer.alloc(0);
    throw error;
  }
}

/** Bytes `from`–`to` of a bundle's file (fewer at its end; none when it is missing), never through a link. */
export async function readRange(file: string, from: number, to: number): Promise<Buffer> {
  const handle = await openBundleFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (!handle) return Buffer.alloc(0);
  try {
    const buffer = Buffer.alloc(to - from);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Times of lines [from, to): every entry of timing.txt is an epoch-ms number of 13 digits and a
 * "\n", so line i starts at byte 14·i. If the slice there does not look like that (a file written
 * otherwise), the whole file is read instead.
 */
async function readTimes(file: string, from: number, to: number): Promise<Array<number | null>> {
  const slice = (await readRange(file, from * 14, to * 14)).toString("utf8");
  if (/^(\d{13}\n)*$/.test(slice) && slice.length === (to - from) * 14) return parseTimes(slice);
  return parseTimes((await readIfExists(file)).toString("utf8")).slice(from, to);
}
