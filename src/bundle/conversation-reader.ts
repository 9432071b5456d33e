/**
 * Reads a bundle's conversation back: claude's lines as stored (bytes, never re-encoded), each
 * with the time it arrived, grouped by the turn that owns it.
 */
import { promises as fs } from "node:fs";
import { splitLines } from "../claude/ndjson.js";
import type { Manifest, Turn } from "./manifest-schema.js";
import { bundleFiles } from "./store.js";

export interface TimedLine {
  /** 0-based line number in conversation.jsonl. */
  n: number;
  bytes: Buffer;
  /** Arrival time (epoch ms), or null when timing.txt has no usable entry for the line. */
  at: number | null;
}

/** A run of lines: a saved turn's, the unsaved turn a crash left behind, or lines between turns. */
export interface TurnLines {
  turn: Turn | null;
  /** Set for the lines of a turn that was in flight when the session stopped and was never saved. */
  pending: { n: number; prompt: string } | null;
  lines: TimedLine[];
}

export async function readConversation(dir: string): Promise<TimedLine[]> {
  const files = bundleFiles(dir);
  const times = parseTimes((await readIfExists(files.timing)).toString("utf8"));
  // splitLines keeps a last line without "\n" (claude killed mid-write): it is shown, not dropped.
  return splitLines(await readIfExists(files.conversation)).map((bytes, n) => ({ n, bytes, at: times[n] ?? null }));
}

/**
 * How many lines conversation.jsonl must hold at least: every saved turn's range, and the lines
 * before a turn that was in flight. Fewer means the file was truncated or deleted.
 */
export function recordedLineCount(manifest: Pick<Manifest, "turns" | "pendingTurn">): number {
  return manifest.turns.reduce((most, turn) => Math.max(most, turn.lines.to), manifest.pendingTurn?.fromLine ?? 0);
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
export function groupByTurn(manifest: Pick<Manifest, "turns" | "pendingTurn">, lines: TimedLine[]): TurnLines[] {
  const groups: TurnLines[] = [];
  let cursor = 0;
  const loose = (to: number) => {
    if (to > cursor) groups.push({ turn: null, pending: null, lines: lines.slice(cursor, to) });
    cursor = Math.max(cursor, to);
  };
  for (const turn of manifest.turns) {
    if (turn.n === 0) continue;
    loose(turn.lines.from);
    groups.push({ turn, pending: null, lines: lines.slice(turn.lines.from, turn.lines.to) });
    cursor = Math.max(cursor, turn.lines.to);
  }
  const pending = manifest.pendingTurn;
  if (pending && pending.fromLine >= cursor) {
    loose(pending.fromLine);
    groups.push({ turn: null, pending: { n: pending.n, prompt: pending.prompt }, lines: lines.slice(cursor) });
    cursor = lines.length;
  }
  loose(lines.length);
  return groups;
}

async function readIfExists(file: string): Promise<Buffer> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    // A session whose claude never wrote a line has no conversation yet: that is an empty one.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return Buffer.alloc(0);
    throw error;
  }
}
