/** How claude's requests are shown and answers read, without a terminal: edit diffs, choices, rules. */
import { describe, expect, it } from "vitest";
import { CanUseToolRequest } from "../../src/claude/control-protocol.js";
import { editDiff } from "../../src/live/edit-diff.js";
import {
  parseChoice,
  parsePermission,
  permissionLines,
  permissionView,
  planLines,
  savedRule,
} from "../../src/terminal/question-views.js";
import { makeStyle } from "../../src/terminal/style.js";

const style = makeStyle(false);
const files: Record<string, string> = {
  "/repo/a.txt": "one\ntwo\none\n",
  "/repo/big.txt": Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n") + "\n",
};
const readFile = (p: string) => (p in files ? files[p] : null);
const diff = (tool: string, input: Record<string, unknown>, maxLines?: number) =>
  editDiff(tool, input, { cwd: "/repo", style, readFile, maxLines });

describe("editDiff", () => {
  it("applies an Edit to the file's text: the first occurrence, or all with replace_all", () => {
    expect(diff("Edit", { file_path: "/repo/a.txt", old_string: "one", new_string: "ONE" })).toEqual([
      "@@ -1,3 +1,3 @@",
      "-one",
      "+ONE",
      " two",
      " one",
    ]);
    expect(diff("Edit", { file_path: "a.txt", old_string: "one", new_string: "ONE", replace_all: true })).toEqual([
      "@@ -1,3 +1,3 @@",
      "-one",
      "+ONE",
      " two",
      "-one",
      "+ONE",
    ]);
  });

  it("keeps $ patterns in new_string literal, as claude writes them", () => {
    expect(diff("Edit", { file_path: "/repo/a.txt", old_string: "two", new_string: "$& $1" })).toContain("+$& $1");
  });

  it("applies a MultiEdit's edits one after another", () => {
    const edits = [
      { old_string: "two", new_string: "2" },
      { old_string: "2\none", new_string: "2\n1" },
    ];
    expect(diff("MultiEdit", { file_path: "/repo/a.txt", edits })).toEqual([
      "@@ -1,3 +1,3 @@",
      " one",
      "-two",
      "-one",
      "+2",
      "+1",
    ]);
  });

  it("compares a Write with the file on disk; a new file is all added", () => {
    expect(diff("Write", { file_path: "/repo/a.txt", content: "one\ntwo\n" })).toEqual([
      "@@ -1,3 +1,2 @@",
      " one",
      " two",
      "-one",
    ]);
    expect(diff("Write", { file_path: "/repo/new.txt", content: "x\n" })).toEqual([
      "(new file)",
      "@@ -0,0 +1,1 @@",
      "+x",
    ]);
  });

  it("shows the strings when the file or the text is not there", () => {
    expect(diff("Edit", { file_path: "/repo/a.txt", old_string: "zzz", new_string: "y" })).toEqual([
      "(text not found in the file; the strings to replace)",
      "@@ -1,1 +1,1 @@",
      "-zzz",
      "+y",
    ]);
    expect(diff("Edit", { file_path: "/repo/gone.txt", old_string: "a", new_string: "b" })?.[0]).toBe(
      "(file not found; the strings to replace)",
    );
  });

  it("caps a long diff with the count of lines left out", () => {
    const lines = diff("Write", { file_path: "/repo/big.txt", content: "" }, 10)!;
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toBe("… 91 more lines");
  });

  it("colours removed red, added green, hunks cyan", () => {
    const colored = editDiff(
      "Edit",
      { file_path: "/repo/a.txt", old_string: "two", new_string: "2" },
      { cwd: "/repo", style: makeStyle(true), readFile },
    )!;
    expect(colored).toContain("\u001b[31m-two\u001b[39m");
    expect(colored).toContain("\u001b[32m+2\u001b[39m");
    expect(colored[0]).toMatch(/^\u001b\[36m@@/);
  });

  it("is null for a tool that changes no file", () => {
    expect(diff("Bash", { command: "ls" })).toBeNull();
  });
});

describe("permission questions", () => {
  const request = (input: object) =>
    CanUseToolRequest.parse({ subtype: "can_use_tool", tool_name: "WebFetch", input, description: "Fetch the docs" });

  it("shows other tools by their detail and the request's description", () => {
    expect(
      permissionLines(request({ url: "https://example.com/docs", prompt: "summarize" }), { cwd: "/repo" }, { style }),
    ).toEqual(["? WebFetch(https://example.com/docs)", "  Fetch the docs"]);
  });

  it("shows control characters in a URL, a path or a description, never passes them to the terminal", () => {
    const lines = permissionLines(request({ url: "https://x.test/\u001b[2K\r? ok" }), { cwd: "/repo" }, { style });
    expect(lines).toEqual(["? WebFetch(https://x.test/\\x1b[2K\\x0d? ok)", "  Fetch the docs"]);
    const write = CanUseToolRequest.parse({
      subtype: "can_use_tool",
      tool_name: "Write",
      input: { file_path: "/repo/a\u001b[31m.ts", content: "x\n" },
    });
    expect(permissionLines(write, { cwd: "/repo" }, { style, readFile: () => null })[0]).toBe("? Write(a\\x1b[31m.ts)");
  });

  it("names the path claude asks about (a command's output file), relative to the work tree", () => {
    const bash = CanUseToolRequest.parse({
      subtype: "can_use_tool",
      tool_name: "Bash",
      input: { command: "echo ran > ran.txt", description: "make ran.txt" },
      blocked_path: "/repo/ran.txt",
    });
    expect(permissionLines(bash, { cwd: "/repo" }, { style })).toEqual([
      "? Bash",
      "  echo ran > ran.txt",
      "  make ran.txt",
      "  needs access to ran.txt",
    ]);
  });

  it("cuts a long diff, naming the key that shows it, and keeps the whole for the pager", () => {
    const write = CanUseToolRequest.parse({
      subtype: "can_use_tool",
      tool_name: "Write",
      input: { file_path: "/repo/big.txt", content: "" },
    });
    const view = permissionView(write, { cwd: "/repo" }, { style, readFile, maxDiffLines: 10 });
    expect(view.lines).toHaveLength(12);
    expect(view.lines.at(-1)).toBe("  … 91 more lines (Ctrl-O shows the whole diff)");
    expect(view.whole).toHaveLength(102);
    expect(view.whole!.slice(0, 11)).toEqual(view.lines.slice(0, 11));
    expect(view.whole!.at(-1)).toBe("  -line 99");
    expect(permissionView(write, { cwd: "/repo" }, { style, readFile, maxDiffLines: 101 }).whole).toBeNull();
  });

  it("reads y/n/a/d, and d only when a rule can be saved", () => {
    expect(["y", "YES", " n ", "a", "always"].map((t) => parsePermission(t, false))).toEqual([
      "yes",
      "yes",
      "no",
      "always",
      "always",
    ]);
    expect(parsePermission("d", false)).toBeUndefined();
    expect(parsePermission("d", true)).toBe("save");
    expect(parsePermission("maybe", true)).toBeUndefined();
  });

  it("names the rule 'don't ask again' saves, preferring rules to directories and modes", () => {
    expect(savedRule([])).toBeNull();
    expect(
      savedRule([
        {
          type: "addRules",
          rules: [{ toolName: "Bash", ruleContent: "rm -rf build" }],
          behavior: "allow",
          destination: "localSettings",
        },
        { type: "addDirectories", directories: ["/tmp/x"], destination: "session" },
      ]),
    ).toBe("rule Bash(rm -rf build) in .claude/settings.local.json");
    expect(savedRule([{ type: "addDirectories", directories: ["/tmp/x"], destination: "projectSettings" }])).toBe(
      "directory /tmp/x in .claude/settings.json",
    );
  });
});

describe("parseChoice", () => {
  const q = { question: "Pick", options: [{ label: "A" }, { label: "B" }, { label: "C" }] };

  it("takes one number, or text as the user's own answer", () => {
    expect(parseChoice("2", q)).toEqual({ labels: ["B"], other: false });
    expect(parseChoice("4", q)).toEqual({ labels: [], other: true });
    expect(parseChoice("B, but smaller", q)).toEqual({ text: "B, but smaller" });
  });

  it("refuses numbers out of range, several where one is asked, and nothing", () => {
    expect(parseChoice("5", q)).toBeUndefined();
    expect(parseChoice("1,2", q)).toBeUndefined();
    expect(parseChoice("  ", q)).toBeUndefined();
  });

  it("takes several numbers, in the options' order, where several may be chosen", () => {
    expect(parseChoice("3 1", { ...q, multiSelect: true })).toEqual({ labels: ["A", "C"], other: false });
    expect(parseChoice("2,4", { ...q, multiSelect: true })).toEqual({ labels: ["B"], other: true });
  });

  it("with colour, a Write's diff has its code highlighted by the file's language, on the added lines' background", () => {
    const write = CanUseToolRequest.parse({
      subtype: "can_use_tool",
      tool_name: "Write",
      input: { file_path: "/repo/a.py", content: "def f():\n    return 1\n" },
    });
    const lines = permissionLines(write, { cwd: "/repo" }, { style: makeStyle(true), readFile: () => null });
    expect(lines).toContain(
      "  \u001b[48;5;22m\u001b[32m+\u001b[39m\u001b[35mdef\u001b[39;22;23m \u001b[34mf\u001b[39;22;23m():\u001b[49m",
    );
    // A file of a language nudge does not highlight keeps git's colours.
    const other = CanUseToolRequest.parse({
      subtype: "can_use_tool",
      tool_name: "Write",
      input: { file_path: "/repo/a.unknown", content: "x\n" },
    });
    expect(permissionLines(other, { cwd: "/repo" }, { style: makeStyle(true), readFile: () => null })).toContain(
      "  \u001b[32m+x\u001b[39m",
    );
  });
});

describe("planLines", () => {
  const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, "");
  it("renders the plan as markdown with colour, under a bar, its markers gone", () => {
    const lines = planLines("# Plan\n\n1. Add **tests**\n- use `vitest`\n\x1b[2Jdone", makeStyle(true), 60).map(plain);
    expect(lines).toEqual(["? Claude's plan", "│ Plan", "│ ", "│ 1. Add tests", "│ • use vitest", "│ \\x1b[2Jdone"]);
  });

  it("without colour, shows the plan as claude wrote it", () => {
    expect(planLines("# Plan\n- **a**", makeStyle(false))).toEqual(["? Claude's plan", "│ # Plan", "│ - **a**"]);
  });
});
