/** The loop's guards, fed turns and tool calls as a live loop would. */
import { describe, expect, it } from "vitest";
import type { Turn } from "../../src/store/manifest-schema.js";
import { Guards, normalizeOutput } from "../../src/loop/guards.js";

const patch = (filesChanged: number) => ({
  file: "changes/turn-001.patch",
  sha256: "0".repeat(64),
  bytes: 0,
  filesChanged,
  insertions: 0,
  deletions: 0,
  binaryFiles: 0,
});
const turn = (filesChanged: number, edited = 0): Turn =>
  ({
    patch: patch(filesChanged),
    edits: edited ? { snapshot: { commit: "", tree: "", ref: "" }, patch: patch(edited) } : null,
  }) as unknown as Turn;
const check = (output: string, exitCode = 1) => ({ exitCode, output });
const OFF = { noChange: null, repeat: null, sameOutput: null };

describe("guards", () => {
  it("no-change: K iterations in a row without a changed file; a change (claude's or the user's) starts the count again", () => {
    const g = new Guards({ ...OFF, noChange: 2 });
    expect(g.iteration(turn(0), check("a"))).toBeNull();
    expect(g.iteration(turn(0, 1), check("b"))).toBeNull(); // the user's edit between turns counts as a change
    expect(g.iteration(turn(0), check("c"))).toBeNull();
    expect(g.iteration(turn(0), check("d"))).toMatchObject({ guard: "no-change", flag: "--guard-no-change 2" });
    g.reset("no-change");
    expect(g.iteration(turn(0), check("e"))).toBeNull();
  });

  it("same-output: the check printed the same K times in a row, timings aside; the baseline counts as the first", () => {
    const g = new Guards({ ...OFF, sameOutput: 2 });
    g.baseline(check("FAIL x (12ms)\nDuration 1.2s"));
    expect(g.iteration(turn(1), check("FAIL x (15ms)\nDuration 0.9s"))).toBeNull();
    expect(g.iteration(turn(1), check("FAIL x (9ms)\nDuration 3s"))).toMatchObject({
      guard: "same-output",
      message: "the check's output has not changed in 2 iterations",
    });
    expect(g.iteration(turn(1), check("FAIL x (9ms)", 2))).toBeNull(); // another exit status is another result
  });

  it("repeat: the same call K times trips at once; key order does not matter; an edit or a changed turn clears the count", () => {
    const g = new Guards({ ...OFF, repeat: 3 });
    expect(g.toolCall("1", "Bash", { command: "npm test", description: "t" })).toBeNull();
    expect(g.toolCall("1", "Bash", { command: "npm test", description: "t" })).toBeNull(); // the same block seen twice counts once
    expect(g.toolCall("2", "Bash", { description: "t", command: "npm test" })).toBeNull();
    expect(g.toolCall("3", "Edit", { file_path: "a.ts", old_string: "x", new_string: "y" })).toBeNull();
    expect(g.toolCall("4", "Bash", { command: "npm test", description: "t" })).toBeNull();
    expect(g.toolCall("5", "Bash", { command: "npm test", description: "t" })).toBeNull();
    g.iteration(turn(1), check("a")); // the turn changed files: progress
    expect(g.toolCall("6", "Bash", { command: "npm test", description: "t" })).toBeNull();
    expect(g.toolCall("7", "Bash", { command: "npm test", description: "t" })).toBeNull();
    g.iteration(turn(0), check("a")); // across turns that changed nothing, the count goes on
    expect(g.toolCall("8", "Bash", { command: "npm test", description: "t" })).toMatchObject({
      guard: "repeat",
      message: "Bash(npm test) was called 3 times with the same input and no edit in between",
    });
  });

  it("off means off", () => {
    const g = new Guards(OFF);
    for (let i = 0; i < 10; i++) {
      expect(g.toolCall(String(i), "Read", { file_path: "a" })).toBeNull();
      expect(g.iteration(turn(0), check("same"))).toBeNull();
    }
  });

  it("normalizes what differs on every run and nothing else", () => {
    expect(normalizeOutput("ok 3 tests in 0.52s at 12:01:02\n")).toBe(
      normalizeOutput("ok 3 tests in 1.1 s at 23:59:59\n"),
    );
    expect(normalizeOutput("3 failed")).not.toBe(normalizeOutput("2 failed"));
  });
});
