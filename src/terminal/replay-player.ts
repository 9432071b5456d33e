/**
 * Plays a recorded conversation back through the live run's renderer. Pacing is computed up front
 * by pure functions (`delaysFor`); the loop only sleeps and renders, and its sleep is injected so
 * tests never wait. Streamed text (partial messages) plays at the pace it was typed, since each
 * stream event has its own arrival time. What nudge wrote to claude (input.jsonl) can be merged in
 * by time (`mergeInput`, src/store/input-merge.ts), so the user's decisions show where they were made.
 */
import type { TurnLines } from "../store/conversation-reader.js";
import type { PlayLine } from "../store/input-merge.js";
import { lineText, parseEventLine } from "../claude/ndjson.js";
import { toStreamEvent } from "../claude/stream-events.js";
import type { EventRenderer } from "./event-renderer.js";
import { formatStat, describeCompaction, oneLine } from "../base/format.js";
import type { Style } from "./style.js";

export interface Pacing {
  /** 2 plays twice as fast. */
  speed: number;
  /** A recorded pause longer than this is shortened to it (asciinema's idle_time_limit). */
  idleLimitMs: number;
  /** False when stdout is not a terminal: nobody is watching, so play instantly. */
  realTime: boolean;
}

/**
 * How long to wait before each line: the recorded gap since the line before, capped at the idle
 * limit and then divided by the speed (the cap is on recorded time, as in asciinema, so it
 * shrinks with --speed too). The first line, and any line with an unknown or backwards time,
 * waits 0.
 */
export function delaysFor(times: ReadonlyArray<number | null>, pacing: Pacing): number[] {
  return times.map((at, i) => {
    const before = i > 0 ? times[i - 1] : null;
    if (!pacing.realTime || at === null || before === null || before === undefined) return 0;
    const gap = Math.max(0, at - before);
    return Math.min(gap, pacing.idleLimitMs) / pacing.speed;
  });
}

/** The dim line that opens a turn in a replay. */
export function turnHeader(n: number, prompt: string | null, note = ""): string {
  const text = prompt ? ` · ${oneLine(prompt, 60)}` : "";
  return `── turn ${n}${text}${note} ──`;
}

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** A real sleep that ends early when the replay is stopped. */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });

export interface PlayOptions {
  /** `heading`: a group that is no recorded turn says what it is (a turn of claude's own session). */
  groups: Array<TurnLines & { heading?: string }>;
  renderer: EventRenderer;
  style: Style;
  write: (text: string) => void;
  pacing: Pacing;
  sleep: Sleep;
  /** Aborted by Ctrl-C: the replay stops before the next line. */
  signal: AbortSignal;
}

export async function play(o: PlayOptions): Promise<"finished" | "stopped"> {
  const delays = delaysFor(
    o.groups.flatMap((g) => g.lines.map((l) => l.at)),
    o.pacing,
  );
  let i = 0;
  for (const group of o.groups) {
    // Wait before the header, not after it: the pause before a turn is the user thinking, and
    // the header belongs with the prompt that follows it.
    if (group.lines.length > 0 && !(await wait(o, delays[i] ?? 0))) return "stopped";
    // The user's own edits before the turn: theirs, not claude's, so named before the turn opens.
    if (group.turn?.edits)
      o.write(o.style.yellow(`✎ your edits before turn ${group.turn.n}: ${formatStat(group.turn.edits.patch)}`) + "\n");
    if (group.turn)
      o.write(
        o.style.dim(
          turnHeader(
            group.turn.n,
            group.turn.prompt,
            group.turn.compaction ? ` · ${describeCompaction(group.turn.compaction)}` : "",
          ),
        ) + "\n",
      );
    if (group.pending) o.write(o.style.dim(turnHeader(group.pending.n, group.pending.prompt, " · not saved")) + "\n");
    if (group.heading) o.write(o.style.dim(group.heading) + "\n");
    for (const [k, line] of group.lines.entries()) {
      if (k > 0 && !(await wait(o, delays[i] ?? 0))) return "stopped";
      renderLine(o.renderer, line);
      i++;
    }
    if (group.turn) o.renderer.turnEnd(group.turn);
    if (group.pending) o.write(o.style.red("✗ the session stopped during this turn; it was never saved\n"));
  }
  return "finished";
}

async function wait(o: PlayOptions, ms: number): Promise<boolean> {
  if (ms > 0 && !o.signal.aborted) await o.sleep(ms, o.signal);
  return !o.signal.aborted;
}

const CUT_ESCAPE = Buffer.from("\\uffff");

function marks(bytes: Buffer): number {
  let n = 0;
  for (let at = bytes.indexOf(CUT_ESCAPE); at !== -1; at = bytes.indexOf(CUT_ESCAPE, at + 1)) n++;
  return n;
}

/** Parse a stored line the way the recorder did; a line that is not JSON reaches the renderer as such. */
function renderLine(renderer: EventRenderer, line: PlayLine): void {
  const json = parseEventLine(line.bytes);
  const event = toStreamEvent(json, json === null ? lineText(line.bytes) : "");
  // Of what nudge wrote, only the answers to claude's requests are news: the prompts are in
  // claude's own stream already (replayed user lines), and an interrupt shows as the turn's end.
  if (line.input && event.type !== "control_response") return;
  // A line read reduced: the bytes its cut strings left out (each cut put its mark, \uffff, in their place).
  const cut = line.whole ? line.whole.length - line.bytes.length + marks(line.bytes) * CUT_ESCAPE.length : 0;
  renderer.render(event, cut);
}
