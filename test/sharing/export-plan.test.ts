/** The pure parts of an export: the plan from a manifest, byte positions carried over line by line, and which file a patch line belongs to. */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Manifest, Turn } from "../../src/store/manifest-schema.js";
import { planExport } from "../../src/sharing/export-plan.js";
import { lineStarts, linesBefore, remapOffsets } from "../../src/sharing/line-offsets.js";
import { tempDir } from "../support/gitdir.js";

const sha = (c: string) => c.repeat(40);
const patch = (file: string) => ({
  file,
  sha256: "0".repeat(64),
  bytes: 0,
  filesChanged: 0,
  insertions: 0,
  deletions: 0,
  binaryFiles: 0,
});

function turn(n: number, o: Partial<Turn> = {}): Turn {
  return {
    n,
    prompt: n ? `prompt ${n}` : null,
    status: "complete",
    startedAt: `2026-11-21T00:00:0${n}.000Z`,
    endedAt: `2026-11-21T00:00:0${n}.500Z`,
    lines: { from: n * 10, to: n * 10 + 10 },
    input: n ? { from: n - 1, to: n } : null,
    result: null,
    claudeSessionId: n ? "c1" : null,
    lastAssistantUuid: n ? `u${n}` : null,
    head: sha("a"),
    snapshot: { commit: sha(String(n + 1)), tree: sha("f"), ref: "refs/nudge/sessions/1e834beb3b" },
    patch: patch(`changes/turn-00${n}.patch`),
    edits: null,
    transcript: n ? "claude/c1.jsonl" : null,
    transcriptBytes: n ? n * 1000 : null,
    ...o,
  };
}

function manifest(turns: Turn[], o: Partial<Manifest> = {}): Manifest {
  return {
    format: 2,
    id: "1e834beb3b",
    createdAt: "2026-11-21T00:00:00.000Z",
    updatedAt: "2026-11-21T01:00:00.000Z",
    state: "complete",
    repo: { root: "/home/ana/app", cwd: "/home/ana/app", baseCommit: sha("a"), branch: "main", worktree: null },
    claude: { version: null, model: null },
    parent: null,
    resume: null,
    rewoundTo: null,
    origin: null,
    summary: { turns: turns.length - 1, costUsd: 0, durationMs: 0, firstPrompt: null, lastPrompt: null },
    turns,
    unsaved: [],
    ...o,
  };
}

describe("the export plan", () => {
  const turns = [
    turn(0),
    turn(1),
    turn(2, {
      edits: {
        snapshot: { commit: sha("e"), tree: sha("d"), ref: "refs/nudge/sessions/1e834beb3b" },
        patch: patch("changes/edits-002.patch"),
      },
      head: sha("b"),
    }),
    turn(3, { claudeSessionId: "c2", transcript: "claude/c2.jsonl", transcriptBytes: 50 }),
  ];

  it("whole: every turn, the logs to the last turn's end, each transcript at the last turn that wrote it, the session's own time", () => {
    const plan = planExport(manifest(turns), null);
    expect(plan.upto).toBeNull();
    expect(plan.turns.map((t) => t.n)).toEqual([0, 1, 2, 3]);
    expect(plan.conversationLines).toBe(40);
    expect(plan.inputLines).toBe(3);
    expect(plan.transcripts.map((t) => [t.name, t.bytes])).toEqual([
      ["claude/c1.jsonl", 2000],
      ["claude/c2.jsonl", 50],
    ]);
    expect(plan.patches).toEqual([
      { file: "changes/turn-000.patch", turn: 0 },
      { file: "changes/turn-001.patch", turn: 1 },
      { file: "changes/edits-002.patch", turn: 2 },
      { file: "changes/turn-002.patch", turn: 2 },
      { file: "changes/turn-003.patch", turn: 3 },
    ]);
    expect(plan.tip).toBe(sha("4"));
    // The base once, then each HEAD that differs from what came before.
    expect(plan.reach).toEqual([
      { ref: "refs/nudge/export/base", commit: sha("a"), turn: null },
      { ref: "refs/nudge/export/head-2", commit: sha("b"), turn: 2 },
    ]);
    expect(plan.exportedAt).toBe("2026-11-21T01:00:00.000Z");
  });

  it("--upto N: turns 0..N, cut at turn N, its end time as the export's time; a later rewind point is dropped", () => {
    const plan = planExport(manifest(turns, { rewoundTo: 3, resume: { claudeSessionId: "c2", atUuid: "u3" } }), 1);
    expect(plan.upto).toBe(1);
    expect(plan.turns.map((t) => t.n)).toEqual([0, 1]);
    expect(plan.conversationLines).toBe(20);
    expect(plan.inputLines).toBe(1);
    expect(plan.transcripts.map((t) => [t.name, t.bytes])).toEqual([["claude/c1.jsonl", 1000]]);
    expect(plan.tip).toBe(sha("2"));
    expect(plan.exportedAt).toBe("2026-11-21T00:00:01.500Z");
    expect([plan.resume, plan.rewoundTo]).toEqual([null, null]);
    expect(
      planExport(manifest(turns, { rewoundTo: 1, resume: { claudeSessionId: "c1", atUuid: "u1" } }), 2),
    ).toMatchObject({ rewoundTo: 1, resume: { claudeSessionId: "c1", atUuid: "u1" } });
    expect(planExport(manifest(turns), 3).upto).toBeNull(); // the last turn is the whole session
  });

  it("refuses a turn that is not there, and a session without turns", () => {
    expect(() => planExport(manifest(turns), 7)).toThrow("session 1e834beb3b has no turn 7");
    expect(() => planExport(manifest([]), null)).toThrow("session 1e834beb3b has no recorded turns to export");
  });
});

describe("byte positions carried over line by line", () => {
  it("finds line starts and line counts, and maps an offset to the same line boundary in a changed copy", async () => {
    const dir = tempDir();
    const original = path.join(dir, "a.jsonl");
    const changed = path.join(dir, "b.jsonl");
    writeFileSync(original, "one\ntwo sk-secret\nthree\nfour"); // the last line has no newline
    writeFileSync(changed, "one\ntwo [REDACTED:x]\nthree\nfour");
    expect([...(await lineStarts(original, [0, 1, 2, 3, 9]))]).toEqual([
      [0, 0],
      [1, 4],
      [2, 18],
      [3, 24],
      [9, 28],
    ]);
    expect([...(await linesBefore(original, [0, 4, 5, 18, 28]))]).toEqual([
      [0, 0],
      [4, 1],
      [5, 1],
      [18, 2],
      [28, 3],
    ]);
    // 18 ends line 2 in the original; in the copy line 2 ends at 21. 10 is inside line 2: back to its start.
    expect([...(await remapOffsets(original, changed, [4, 18, 10]))]).toEqual([
      [4, 4],
      [18, 21],
      [10, 4],
    ]);
  });
});
