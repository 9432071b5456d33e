/**
 * Claude's requests asked on a real pty (tty-harness.ts): what the person sees, what they type,
 * and the answer the session gets back.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/gitdir.js";
import { runHarness } from "./pty.js";

function request(tool_name: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { subtype: "can_use_tool", tool_name, input, tool_use_id: "toolu_1", ...extra };
}

const BASH_SUGGESTIONS = {
  permission_suggestions: [
    {
      type: "addRules",
      rules: [{ toolName: "Bash", ruleContent: "npm test:*" }],
      behavior: "allow",
      destination: "localSettings",
    },
  ],
};

describe("a permission question", () => {
  it("shows a Write of a new file as added lines, relative to cwd, and takes y", async () => {
    const cwd = tempDir();
    const t = runHarness({
      steps: [
        {
          do: "permission",
          cwd,
          request: request("Write", { file_path: path.join(cwd, "src/new.txt"), content: "one\ntwo\n" }),
        },
      ],
    });
    await t.waitFor("Allow?");
    const { lines } = await t.screen();
    expect(lines).toEqual([
      "? Write(src/new.txt)",
      "  (new file)",
      "  @@ -0,0 +1,2 @@",
      "  +one",
      "  +two",
      "Allow? [y]es / [n]o / [a]lways for this session ",
    ]);
    t.type("y\r");
    await t.child;
    expect(t.logged("permission")).toEqual([{ kind: "yes" }]);
    expect((await t.screen()).lines.at(-1)).toBe("Allow? [y]es / [n]o / [a]lways for this session y");
  });

  it("shows an Edit as the file's diff with old_string replaced, and takes n with a reason", async () => {
    const cwd = tempDir();
    writeFileSync(path.join(cwd, "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");
    const edit = request("Edit", { file_path: path.join(cwd, "math.js"), old_string: "a - b", new_string: "a + b" });
    const t = runHarness({ steps: [{ do: "permission", cwd, request: edit }] });
    await t.waitFor("Allow?");
    expect((await t.screen()).lines.slice(0, 6)).toEqual([
      "? Edit(math.js)",
      "  @@ -1,3 +1,3 @@",
      "   export function add(a, b) {",
      "  -  return a - b;",
      "  +  return a + b;",
      "   }",
    ]);
    t.type("n\r");
    await t.waitFor("Reason for claude (Enter for none): ");
    t.type("keep it, the tests expect it\r");
    await t.child;
    expect(t.logged("permission")).toEqual([{ kind: "no", reason: "keep it, the tests expect it" }]);
  });

  it("shows a Bash command with its description; [d] names the rule it would save; a, d and no-reason n", async () => {
    const bash = request("Bash", { command: "npm test", description: "Run the tests" }, BASH_SUGGESTIONS);
    const t = runHarness(
      { steps: [1, 2, 3].map(() => ({ do: "permission", cwd: "/", request: bash })) },
      { cols: 140 },
    );
    await t.waitFor("Allow?");
    expect((await t.screen()).lines).toEqual([
      "? Bash",
      "  npm test",
      "  Run the tests",
      "Allow? [y]es / [n]o / [a]lways for this session / [d]on't ask again (save rule Bash(npm test:*) in .claude/settings.local.json) ",
    ]);
    t.type("a\r");
    await t.waitForLog("permission", 1);
    t.type("d\r");
    await t.waitForLog("permission", 2);
    t.type("n\r");
    await t.waitFor("Reason for claude");
    t.type("\r");
    await t.child;
    expect(t.logged("permission")).toEqual([{ kind: "always" }, { kind: "save" }, { kind: "no" }]);
  });

  it("asks again on an answer it does not know, and takes Ctrl-C as a no without ending anything", async () => {
    const bash = request("Bash", { command: "rm -rf build" });
    const t = runHarness({ steps: [{ do: "permission", cwd: "/", request: bash }, { do: "prompt" }] });
    await t.waitFor("Allow?");
    t.type("d\r"); // no suggestions: no [d]
    await t.waitFor("type y, n or a");
    t.type("\u0003");
    await t.waitFor("› ");
    t.type("still here\r");
    await t.child;
    expect(t.logged("permission")).toEqual([{ kind: "no" }]);
    expect(t.logged("prompt")).toEqual(["still here"]);
  });

  it("after an answer it does not know, the line starts afresh: the next y is a yes", async () => {
    const bash = request("Bash", { command: "rm -rf build" });
    const t = runHarness({ steps: [{ do: "permission", cwd: "/", request: bash }] });
    await t.waitFor("Allow?");
    t.type("yes please\r");
    await t.waitFor("type y, n or a");
    t.type("y\r");
    await t.child;
    expect(t.logged("permission")).toEqual([{ kind: "yes" }]);
  });

  it("asked mid-turn: the line typed ahead steps aside under the status line and survives, and comes back", async () => {
    const bash = request("Bash", { command: "echo hi" });
    const t = runHarness({
      steps: [
        { do: "prompt" },
        { do: "start" },
        { do: "wait", ms: 1500 },
        { do: "permission", cwd: "/", request: bash },
        { do: "wait", ms: 1500 },
        { do: "stop" },
        { do: "prompt" },
      ],
    });
    await t.waitFor("› ");
    t.type("go\r");
    await t.waitFor("Ctrl-C to interrupt");
    t.type("next thi");
    const asking = await t.screenWhen(
      (lines) => lines.some((l) => l.startsWith("Allow?")) && /Ctrl-C to interrupt/.test(lines.at(-1) ?? ""),
      "the question, the status line under it",
    );
    expect(asking.join("\n")).not.toMatch(/next thi/);
    expect(asking.at(-1)).toMatch(/Ctrl-C to interrupt/); // the status line, under the question
    t.type("y\r");
    await t.waitForLog("permission");
    await t.waitFor(/Allow\? .* y[\s\S]*Ctrl-C to interrupt[\s\S]*› next thi/);
    t.type("ng\r");
    await t.waitForLog("prompt", 2);
    expect(t.logged("permission")).toEqual([{ kind: "yes" }]);
    expect(t.logged("prompt")).toEqual(["go", "next thing"]);
    await t.child;
  });

  it("shows a diff's long lines as they are, never wrapped at words: each row of a wrapped line would lose its + gutter", async () => {
    const cwd = tempDir();
    const long = "const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];";
    const write = request("Write", { file_path: path.join(cwd, "w.js"), content: `${long}\n` });
    const t = runHarness({ steps: [{ do: "permission", cwd, request: write }] }, { cols: 40 });
    await t.waitFor("Allow?");
    const { lines } = await t.screen();
    const at = lines.findIndex((l) => l.startsWith("  +const"));
    // The terminal's own wrap: the first row full to the last column, the next going on mid-word.
    expect(lines.slice(at, at + 2).join("")).toBe(`  +${long}`);
    t.type("y\r");
    await t.child;
  });
});

const DB = {
  question: "Which database should I use?",
  header: "Database",
  multiSelect: false,
  options: [
    { label: "SQLite", description: "one file, no server" },
    { label: "Postgres", description: "a server to run" },
  ],
};
const FEATURES = {
  question: "Which features?",
  header: "Features",
  multiSelect: true,
  options: [{ label: "Auth" }, { label: "Search" }, { label: "Export" }],
};

describe("AskUserQuestion", () => {
  it("shows the header and numbered options, and takes an answer by number", async () => {
    const t = runHarness({ steps: [{ do: "questions", questions: [DB] }] });
    await t.waitFor("Choose 1-3");
    expect((await t.screen()).lines).toEqual([
      "? Database Which database should I use?",
      "  1. SQLite — one file, no server",
      "  2. Postgres — a server to run",
      "  3. Other (type your own answer)",
      "Choose 1-3, or type your answer: ",
    ]);
    t.type("2\r");
    await t.child;
    expect(t.logged("questions")).toEqual([{ "Which database should I use?": "Postgres" }]);
  });

  it("takes free text, the 'other' option, and several numbers where several may be chosen", async () => {
    const t = runHarness({
      steps: [
        { do: "questions", questions: [DB, FEATURES] },
        { do: "questions", questions: [DB] },
      ],
    });
    await t.waitFor("Choose 1-3");
    t.type("MySQL, we already run it\r");
    await t.waitFor("Choose one or more (e.g. 1,3) of 1-4");
    t.type("5\r"); // not an option: asked again
    await t.waitFor("type a number from the list");
    t.type("\u0015"); // Ctrl-U: clear the line
    t.type("3, 1\r"); // in the options' order, whatever the typed order
    await t.waitForLog("questions");
    await t.waitFor(/Which features\?[\s\S]*Choose 1-3, or type your answer: \s*$/);
    t.type("3\r");
    await t.waitFor("Your answer: ");
    t.type("DuckDB\r");
    await t.child;
    expect(t.logged("questions")).toEqual([
      { "Which database should I use?": "MySQL, we already run it", "Which features?": "Auth, Export" },
      { "Which database should I use?": "DuckDB" },
    ]);
  });

  it("Ctrl-C declines to answer (null)", async () => {
    const t = runHarness({ steps: [{ do: "questions", questions: [DB] }] });
    await t.waitFor("Choose 1-3");
    t.type("\u0003");
    await t.child;
    expect(t.logged("questions")).toEqual([null]);
  });
});

describe("ExitPlanMode", () => {
  const plan = "# Plan\n\n1. Add a test\n2. Fix add()";

  it("shows the plan and takes an approval", async () => {
    const t = runHarness({ steps: [{ do: "plan", plan }] });
    await t.waitFor("Approve the plan?");
    expect((await t.screen()).lines).toEqual([
      "? Claude's plan",
      "│ # Plan",
      "│ ",
      "│ 1. Add a test",
      "│ 2. Fix add()",
      "Approve the plan? [y]es / [a] yes + accept edits / [n]o, keep planning ",
    ]);
    t.type("y\r");
    await t.child;
    expect(t.logged("plan")).toEqual([{ approve: true }]);
  });

  it("keeps planning with the feedback typed", async () => {
    const t = runHarness({ steps: [{ do: "plan", plan }] });
    await t.waitFor("Approve the plan?");
    t.type("n\r");
    await t.waitFor("What should change? ");
    t.type("write the test first, and run it\r");
    await t.child;
    expect(t.logged("plan")).toEqual([{ approve: false, feedback: "write the test first, and run it" }]);
  });
});
