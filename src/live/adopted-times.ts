/**
 * An adopted session's times are its conversation's, not the adoption's: the session starts when
 * claude's transcript does, each adopted turn (and each of its lines) is dated by the transcript's
 * `timestamp`s. The adoption's own time stays in the header's `adopted.at` and `updatedAt` (so a
 * `gc` does not take an old conversation just adopted for one unused that long).
 */
import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "../store/atomic-write.js";
import { parseTimes } from "../store/conversation-reader.js";
import { bundleFiles, readManifest, writeBundle } from "../store/store.js";
import type { Manifest } from "../store/manifest-schema.js";

/** One adopted turn's times (epoch ms, null where the line has none): its prompt's, and each of its lines', in transcript order. */
export interface TurnTimes {
  prompt: number | null;
  lines: Array<number | null>;
}

/** A time the bundle can hold: 13 digits of epoch ms (2001 to 2286), so a made-up timestamp dates nothing. */
export function usableTime(ms: number | null): number | null {
  return ms !== null && ms >= 1e12 && ms < 1e13 ? ms : null;
}

/** When the conversation began: its earliest time, or null when no line has one. */
export function conversationStart(turns: TurnTimes[]): number | null {
  return turns.reduce<number | null>((first, t) => least(first, least(...span(t.lines))), null);
}

/** The earliest and latest of the times, or nulls when there are none (a loop: a turn may have a million lines). */
function span(times: Array<number | null>): [number | null, number | null] {
  let from: number | null = null;
  let to: number | null = null;
  for (const t of times) {
    if (t === null) continue;
    if (from === null || t < from) from = t;
    if (to === null || t > to) to = t;
  }
  return [from, to];
}

const least = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

/**
 * Rewrite a just-adopted bundle's turn times and line times from the transcript's (`turns[i]` is
 * turn i+1's): turn 0 at the session's start, a turn with no time of its own at the end of the one
 * before it. Written as a fork or an import writes a bundle: the journal afresh, then the header.
 */
export async function dateAdoptedTurns(dir: string, turns: TurnTimes[], header: Partial<Manifest>): Promise<void> {
  const m = await readManifest(dir);
  const timing = bundleFiles(dir).timing;
  const lineTimes = parseTimes(await readFile(timing, "utf8").catch(() => "")).slice(0, -1); // it ends in "\n"
  let last = Date.parse(m.createdAt);
  const dated = m.turns.map((t) => {
    if (t.n === 0) return { ...t, startedAt: m.createdAt, endedAt: m.createdAt };
    const own = turns[t.n - 1] ?? { prompt: null, lines: [] };
    const [first, latest] = span(own.lines);
    const from = own.prompt ?? first ?? last;
    const to = Math.max(from, latest ?? from);
    // One conversation line per transcript line (else every line at the turn's start): each dated by its own time, else the one before.
    const oneToOne = own.lines.length === t.lines.to - t.lines.from;
    let carried = from;
    for (let i = t.lines.from; i < Math.min(t.lines.to, lineTimes.length); i++) {
      carried = (oneToOne ? own.lines[i - t.lines.from] : null) ?? carried;
      lineTimes[i] = carried;
    }
    last = to;
    return { ...t, startedAt: iso(from), endedAt: iso(to) };
  });
  if (lineTimes.length) await writeFileAtomic(timing, lineTimes.map((x) => `${x ?? last}\n`).join(""));
  await writeBundle(dir, { ...m, ...header, turns: dated });
}

const iso = (ms: number) => new Date(ms).toISOString();
