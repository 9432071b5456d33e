/** Replay pacing and the player loop, with an injected sleep so nothing here waits. */
import { describe, expect, it } from "vitest";
import { groupByTurn, parseTimes, type TimedLine } from "../../src/store/conversation-reader.js";
import type { Turn } from "../../src/store/manifest-schema.js";
import { EventRenderer } from "../../src/terminal/event-renderer.js";
import { delaysFor, play, type Pacing } from "../../src/terminal/replay-player.js";
import { makeStyle } from "../../src/terminal/style.js";

const live: Pacing = { speed: 1, idleLimitMs: 2000, realTime: true };

describe("delaysFor", () => {
  it("waits the recorded gap before each line, nothing before the first", () => {
    expect(delaysFor([1000, 1100, 1600, 1600], live)).toEqual([0, 100, 500, 0]);
  });

  it("divides the gaps by the speed", () => {
    expect(delaysFor([0, 100, 500], { ...live, speed: 2 })).toEqual([0, 50, 200]);
    expect(delaysFor([0, 100], { ...live, speed: 0.5 })).toEqual([0, 200]);
  });

  it("caps each recorded gap at the idle limit, before the speed applies (as asciinema does)", () => {
    expect(delaysFor([0, 60_000, 60_500], live)).toEqual([0, 2000, 500]);
    expect(delaysFor([0, 60_000], { ...live, speed: 4 })).toEqual([0, 500]);
    expect(delaysFor([0, 60_000, 60_500], { ...live, idleLimitMs: 0 })).toEqual([0, 0, 0]);
  });

  it("is all zeros when stdout is not a terminal", () => {
    expect(delaysFor([0, 60_000, 61_000], { ...live, realTime: false })).toEqual([0, 0, 0]);
  });

  it("treats unknown or backwards times as no pause", () => {
    expect(delaysFor([0, null, 500, 400, 900], live)).toEqual([0, 0, 0, 0, 500]);
  });
});

describe("parseTimes", () => {
  it("reads one epoch-ms number per line; a damaged entry is unknown", () => {
    expect(parseTimes("1700000000000\n1700000000250\nxx\n\n")).toEqual([
      1700000000000,
      1700000000250,
      null,
      null,
      null,
    ]);
  });
});

// A two-turn conversation: lines 0-2 are turn 1, 3-5 turn 2, line 6 a crash's half-written line.
const json = (value: unknown) => JSON.stringify(value);
const texts = [
  json({ type: "user", message: { content: "first prompt" }, isReplay: true }),
  json({ type: "assistant", message: { content: [{ type: "text", text: "first answer" }] } }),
  json({ type: "result", subtype: "success", is_error: false }),
  json({ type: "user", message: { content: "second prompt" }, isReplay: true }),
  json({ type: "assistant", message: { content: [{ type: "text", text: "second answer" }] } }),
  json({ type: "result", subtype: "success", is_error: false }),
  '{"type":"assistant","mess',
];
const times = [0, 100, 5_000, 60_000, 60_300, 61_000, 61_100];
const lines: TimedLine[] = texts.map((t, n) => ({ n, bytes: Buffer.from(t), at: times[n]! }));

function turn(n: number, prompt: string | null, from: number, to: number): Turn {
  const sha = "a".repeat(40);
  return {
    n,
    prompt,
    status: "complete",
    startedAt: "2025-01-01T00:00:00.000Z",
    endedAt: "2025-01-01T00:00:01.000Z",
    lines: { from, to },
    result: { subtype: "success", isError: false, costUsd: 0.01, durationMs: 1000, numTurns: 1, usage: null },
    claudeSessionId: null,
    lastAssistantUuid: null,
    head: null,
    snapshot: { commit: sha, tree: sha, ref: `refs/nudge/x/${n}` },
    patch: {
      file: "p",
      sha256: "0".repeat(64),
      bytes: 0,
      filesChanged: 1,
      insertions: 2,
      deletions: 0,
      binaryFiles: 0,
    },
    transcript: null,
  };
}
const turns = [turn(0, null, 0, 0), turn(1, "first prompt", 0, 3), turn(2, "second prompt", 3, 6)];

function player(groups = groupByTurn({ turns, unsaved: [] }, lines), pacing = live) {
  let out = "";
  const notices: string[] = [];
  const sleeps: number[] = [];
  const stop = new AbortController();
  const write = (text: string) => void (out += text);
  const notice = (text: string) => void notices.push(text);
  const renderer = new EventRenderer({
    style: makeStyle(false),
    write,
    verbose: false,
    showPrompts: true,
    cwd: "/repo",
    notice,
  });
  const run = (onSleep?: (ms: number) => void) =>
    play({
      groups,
      renderer,
      style: makeStyle(false),
      write,
      pacing,
      signal: stop.signal,
      sleep: async (ms) => {
        sleeps.push(ms);
        onSleep?.(ms);
      },
    });
  return { run, stop, sleeps, output: () => out, notices };
}

describe("groupByTurn", () => {
  it("cuts the lines at the turns' ranges; lines after the last turn are kept, not dropped", () => {
    const groups = groupByTurn({ turns, unsaved: [] }, lines);
    expect(groups.map((g) => [g.turn?.n ?? null, g.lines.map((l) => l.n)])).toEqual([
      [1, [0, 1, 2]],
      [2, [3, 4, 5]],
      [null, [6]],
    ]);
  });

  it("gives the lines of a turn a crash left unsaved to that pending turn", () => {
    const pending = { n: 2, prompt: "second prompt", startedAt: "2025-01-01T00:00:00.000Z", fromLine: 3, ended: null };
    const groups = groupByTurn({ turns: turns.slice(0, 2), unsaved: [pending] }, lines);
    expect(groups.map((g) => [g.turn?.n ?? null, g.pending?.n ?? null, g.lines.length])).toEqual([
      [1, null, 3],
      [null, 2, 4],
    ]);
  });

  it("ends a turn not yet captured where the next begun turn starts (a waiting prompt goes at the result)", () => {
    const at = "2025-01-01T00:00:00.000Z";
    const unsaved = [
      { n: 1, prompt: "first prompt", startedAt: at, fromLine: 0, ended: null },
      { n: 2, prompt: "second prompt", startedAt: at, fromLine: 3, ended: null },
    ];
    const groups = groupByTurn({ turns: turns.slice(0, 1), unsaved }, lines);
    expect(groups.map((g) => [g.pending?.n ?? null, g.lines.map((l) => l.n)])).toEqual([
      [1, [0, 1, 2]],
      [2, [3, 4, 5, 6]],
    ]);
  });
});

describe("play", () => {
  it("renders each turn with a header, its lines and its end line, sleeping the paced gaps", async () => {
    const p = player();
    expect(await p.run()).toBe("finished");
    expect(p.output()).toBe(
      [
        "── turn 1 · first prompt ──",
        "› first prompt",
        "first answer",
        "● turn 1 · success · 1.0s · $0.0100 · 1 file +2 -0",
        "── turn 2 · second prompt ──",
        "› second prompt",
        "second answer",
        "● turn 2 · success · 1.0s · $0.0100 · 1 file +2 -0",
        "",
      ].join("\n"),
    );
    // The half-written line is nudge's notice, not claude's words: it goes apart (stderr in the CLI).
    expect(p.notices).toEqual(['! not JSON: {"type":"assistant","mess']);
    expect(p.sleeps).toEqual([100, 2000, 2000, 300, 700, 100]);
  });

  it("never sleeps when stdout is not a terminal", async () => {
    const p = player(undefined, { ...live, realTime: false });
    expect(await p.run()).toBe("finished");
    expect(p.sleeps).toEqual([]);
    expect(p.output()).toContain("turn 2 · success");
  });

  it("stops before the next line once stopped (Ctrl-C)", async () => {
    const p = player();
    // The stop arrives during the long pause before turn 2.
    expect(await p.run(() => p.sleeps.length === 3 && p.stop.abort())).toBe("stopped");
    expect(p.output()).toContain("turn 1 · success");
    expect(p.output()).not.toContain("second prompt");
  });

  it("plays a single turn alone", async () => {
    const p = player(groupByTurn({ turns, unsaved: [] }, lines).filter((g) => g.turn?.n === 2));
    await p.run();
    expect(p.output()).toMatch(/^── turn 2 · second prompt ──\n› second prompt\nsecond answer\n● turn 2 · success/);
    expect(p.output()).not.toContain("first");
    expect(p.sleeps).toEqual([300, 700]);
  });
});
