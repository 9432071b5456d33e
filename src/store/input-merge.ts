/**
 * Both sides of a session in the order they happened: claude's lines (conversation.jsonl) and what
 * nudge wrote to claude (input.jsonl: prompts and the user's answers), merged by arrival time. The
 * replay and the web view both read a turn this way, so an answer shows where it was made.
 */
import { parseTimes, type TimedLine, type TurnLines } from "./conversation-reader.js";
import { splitLines } from "../claude/ndjson.js";

/** A line to play: claude's (conversation.jsonl) or, with `input`, one nudge wrote to claude's stdin (input.jsonl; `n` counts there). */
export type PlayLine = TimedLine & { input?: true };

/** input.jsonl and input-timing.txt read into lines: each as written, with the time it was written. */
export function inputLines(jsonl: Buffer, timing: string): PlayLine[] {
  const times = parseTimes(timing);
  return splitLines(jsonl).map((bytes, n) => ({ n, bytes, at: times[n] ?? null, input: true }));
}

/**
 * Claude's lines and nudge's, in the order they happened: each input line goes before the first
 * conversation line that arrived after it was written (so an answer comes before claude's echo of
 * it, and after the request it answers), in that line's turn; after everything, into the last
 * group. A conversation line with no time counts as arriving with the line before it. Input lines
 * without a time are left out: where they belong is unknown (claude's echo still shows a decision).
 * Merge all the groups, then pick a turn: an input line belongs where its time puts it.
 */
export function mergeInput(groups: TurnLines[], input: PlayLine[]): TurnLines[] {
  const timed = input.filter((l) => l.at !== null).sort((a, b) => a.at! - b.at!);
  if (timed.length === 0 || groups.length === 0) return groups;
  let k = 0;
  let known = -Infinity;
  const merged = groups.map((group) => {
    const lines: PlayLine[] = [];
    for (const line of group.lines) {
      known = line.at ?? known;
      while (k < timed.length && timed[k]!.at! < known) lines.push(timed[k++]!);
      lines.push(line);
    }
    return { ...group, lines };
  });
  merged.at(-1)!.lines.push(...timed.slice(k));
  return merged;
}
