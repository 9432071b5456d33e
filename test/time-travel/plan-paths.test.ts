/**
 * A rewind's plan is shown before the user confirms it: a file name must not be able to pass for
 * another line of it, nor restyle the terminal. Names with a newline, a tab or an escape sequence
 * are shown quoted, as git quotes them.
 */
import { describe, expect, it } from "vitest";
import { codeChanges, describePlan, type RewindPlan } from "../../src/time-travel/rewind-plan.js";
import type { TreeChange } from "../../src/snapshot/git.js";

const ZERO = "0".repeat(40);
const change = (status: TreeChange["status"], path: string): TreeChange => ({
  status,
  path,
  oldMode: "100644",
  oldBlob: ZERO,
  mode: status === "D" ? "000000" : "100644",
  blob: ZERO,
});

function plan(changes: TreeChange[], yours: string[], recorded: string[] = []): RewindPlan {
  return {
    sessionId: "0afa1d7564",
    turn: 1,
    scope: "code",
    target: { tree: ZERO, commit: ZERO },
    current: { tree: ZERO, head: null, branch: "main" },
    ...codeChanges(changes, new Set(yours), new Set(), new Set(recorded)),
    unsavedWork: true,
    head: { recorded: null, current: null, differs: false, reset: false, relation: null },
    imported: false,
    otherBranch: null,
    conversation: null,
    conversationInPlace: false,
    shared: null,
  };
}

describe("a rewind plan's file names", () => {
  it("a name holding a newline, a tab or an escape is one quoted line; an ordinary name is shown as it is", () => {
    const forged = "notes.txt\n  delete  src/main.ts";
    const lines = describePlan(
      plan(
        [
          change("D", forged),
          change("A", "tab\there.txt"),
          change("M", "bell\u0007\u001b[31mred.txt"),
          change("M", "plain name.txt"),
        ],
        [forged],
      ),
    );
    expect(lines).toEqual([
      "rewind session 0afa1d7564 to turn 1",
      '  write   "tab\\there.txt"',
      '  write   "bell\\x07\\x1b[31mred.txt"',
      "  write   plain name.txt",
      "  changes in none of this session's snapshots (your edits, or another session's work; the backup keeps them):",
      '    delete     "notes.txt\\n  delete  src/main.ts"',
      "  backup: the work tree has changes not in any snapshot; they are saved first (undo: nudge session rewind --undo)",
    ]);
    expect(lines.join("\n")).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
  });

  it("names that are not UTF-8 are quoted as git quotes them, so two of them never show alike", () => {
    // Bytes 0xff and 0xfe: each decoded as U+FFFD, both showed as "x\ufffd.txt".
    const lines = describePlan(
      plan([change("A", "x\xff.txt"), change("A", "x\xfe.txt"), change("A", "caf\xc3\xa9.txt")], []),
    );
    // A name holding a quote or a backslash is quoted too: "x\377.txt" typed literally differs from the byte name.
    const literal = describePlan(plan([change("A", '"x\\377.txt"'), change("A", "a\\b.txt")], []));
    expect(literal.slice(1, 3)).toEqual(['  write   "\\"x\\\\377.txt\\""', '  write   "a\\\\b.txt"']);
    expect(lines.slice(1, 4)).toEqual(['  write   "x\\377.txt"', '  write   "x\\376.txt"', "  write   caf\u00e9.txt"]);
  });

  it("lists deletions before writes, the order the switch makes them in (a folder gives way to a file)", () => {
    const lines = describePlan(
      plan(
        [change("A", "out"), change("D", "out/a.txt"), change("M", "mine"), change("D", "theirs/b.txt")],
        ["mine", "theirs/b.txt"],
      ),
    );
    expect(lines.slice(1, -1)).toEqual([
      "  delete  out/a.txt",
      "  write   out",
      "  changes in none of this session's snapshots (your edits, or another session's work; the backup keeps them):",
      "    delete     theirs/b.txt",
      "    overwrite  mine",
    ]);
  });

  it("files recorded as the user's edits, and none else of theirs: their heading only, no empty one after it", () => {
    const lines = describePlan(plan([change("M", "hand-made.txt"), change("A", "claude.txt")], [], ["hand-made.txt"]));
    expect(lines).toEqual([
      "rewind session 0afa1d7564 to turn 1",
      "  write   claude.txt",
      "  yours: files you changed by hand between turns (recorded as your edits; the backup keeps them, undo brings them back):",
      "    write     hand-made.txt",
      "  backup: the work tree has changes not in any snapshot; they are saved first (undo: nudge session rewind --undo)",
    ]);
  });
});
