/**
 * Rules that cannot be slipped past and patterns that cannot hang nudge, judged on the corpus in
 * fixtures/hostile-rules: every command there that runs more than `^node --test$` describes is
 * not allowed by it, while deny rules see every part; every catastrophic pattern is refused at
 * load or decided at once.
 */
import { readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { evaluate, type ToolCall } from "../../src/rules/evaluate.js";
import { parseRules } from "../../src/rules/parse-rules.js";
import { readShell } from "../../src/rules/shell-commands.js";
import { callDetail } from "../../src/rules/tool-input.js";
import { FIXTURES } from "../support/fixture-dir.js";
import { gitdir, writeFiles } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

interface Entry {
  why: string;
  command: string;
  loose?: boolean;
}
const corpus = JSON.parse(readFileSync(path.join(FIXTURES, "hostile-rules/commands.json"), "utf8")) as {
  refused: Entry[];
  allowed: Entry[];
  denied: Entry[];
};
const patterns = JSON.parse(readFileSync(path.join(FIXTURES, "hostile-rules/patterns.json"), "utf8")) as {
  patterns: Array<{
    field: "command" | "content" | "path";
    pattern: string;
    input: string;
    refused?: boolean;
    matches?: boolean;
  }>;
};

const ROOT = "/home/ana/app";
const rulesOf = (yaml: string) => parseRules(`version: 1\nrules:\n${yaml}`, ".nudge/rules.yaml");
const bash = (command: string): ToolCall => ({ toolName: "Bash", input: { command }, cwd: ROOT, repoRoot: ROOT });
const allowRule = (pattern: string) =>
  rulesOf(`  - id: run-tests\n    match: { tool: Bash, command: '${pattern}' }\n    action: allow\n`);
const STRICT = allowRule("^node --test$");
const LOOSE = allowRule("node --test.*");
const DENY_RM = rulesOf(`  - id: no-rm\n    match: { command: '^rm ' }\n    action: deny\n    message: no\n`);
const DENY = rulesOf(`  - id: no-touch\n    match: { command: '^touch ' }\n    action: deny\n    message: no\n`);

describe("an allow rule allows only the command it describes", () => {
  it("has a corpus of at least 20 commands that try to slip past it", () => {
    expect(corpus.refused.length).toBeGreaterThanOrEqual(20);
  });

  it.each(corpus.refused)("refuses $why", ({ command, loose }) => {
    expect(evaluate(STRICT, bash(command))).toBeNull();
    if (loose) expect(evaluate(LOOSE, bash(command))).toBeNull();
  });

  it.each(corpus.allowed)("still allows $why", ({ command }) => {
    expect(evaluate(STRICT, bash(command))?.action).toBe("allow");
  });

  it("lets a deny rule anchored with ^ see every simple command, those in substitutions and after then included", () => {
    // Stricter than a search of the whole text: `^touch ` is not at the start of any line of these.
    const missedBefore = corpus.refused.filter(
      (e) => e.loose && e.command.includes("touch ") && !/^touch /m.test(e.command),
    );
    const bashRuns = missedBefore.filter((e) => !/eval|unterminated quote|right-to-left/.test(e.why));
    expect(bashRuns.length).toBeGreaterThan(10);
    for (const { command, why } of bashRuns) expect(evaluate(DENY, bash(command))?.action, why).toBe("deny");
  });

  it.each(corpus.denied)("a deny rule on ^rm denies $why", ({ command }) => {
    expect(evaluate(DENY_RM, bash(command))?.action).toBe("deny");
    expect(evaluate(STRICT, bash(command))).toBeNull();
  });

  it("reads a command nested 5,000 deep without a crash, and never allows it", () => {
    const deep = `${"$(".repeat(5000)}rm x${")".repeat(5000)}`;
    expect(readShell(deep).notPlain).not.toBeNull();
    expect(evaluate(DENY_RM, bash(deep))?.action).toBe("deny");
  });

  it("reads a command into its simple commands as bash does", () => {
    expect(readShell("a && b || c | d; e & f\ng")).toEqual({
      commands: ["a", "b", "c", "d", "e", "f", "g"],
      notPlain: null,
    });
    expect(readShell("make 2>&1 >/dev/null &>log >|out")).toEqual({
      commands: ["make 2>&1 >/dev/null &>log >|out"],
      notPlain: null,
    });
    expect(readShell(`echo 'a;b' "c|d" e\\;f`)).toEqual({ commands: [`echo 'a;b' "c|d" e\\;f`], notPlain: null });
    expect(readShell("echo $(rm -rf x; ls)")).toEqual({
      commands: ["rm -rf x", "ls", "echo $(rm -rf x; ls)"],
      notPlain: "a command substitution",
    });
    expect(readShell("if true; then rm x; fi").commands).toEqual(["true", "rm x"]);
  });

  it("shows every control and invisible character of a command in the decision's detail", () => {
    expect(callDetail(bash("echo hi\nnode --test"))).toBe("echo hi\\nnode --test");
    expect(callDetail(bash("a\u0000b\u001b[2Jc\u202ed\re\u200bf"))).toBe("a\\x00b\\x1b[2Jc\\u202ed\\x0de\\u200bf");
  });
});

describe("no pattern can hang nudge", () => {
  it("has a corpus of at least 10 catastrophic patterns", () => {
    expect(patterns.patterns.length).toBeGreaterThanOrEqual(10);
  });

  // Through the built CLI, each in its own process with a deadline: a backtracking engine never
  // returns from these, and a synchronous hang inside the test runner could not be timed out.
  it.each(patterns.patterns)(
    "$field $pattern is refused at load or decided at once",
    async ({ field, pattern, input, refused, matches }) => {
      const repo = await gitdir();
      writeFiles(repo, {
        ".nudge/rules.yaml": `version: 1\nrules:\n  - id: slow\n    match: { ${field}: '${pattern}' }\n    action: deny\n    message: no\n`,
      });
      const [tool, toolInput] =
        field === "command"
          ? ["Bash", { command: input }]
          : field === "content"
            ? ["Write", { file_path: "a.txt", content: input }]
            : ["Write", { file_path: input, content: "" }];
      const run = await runNudge(["rules", "test", tool, JSON.stringify(toolInput), "--json"], {
        cwd: repo,
        timeout: 30_000,
      });
      expect(run.timedOut, "rules test hung").toBe(false);
      if (refused) {
        expect(run.exitCode).toBe(1);
        expect(run.stderr).toMatch(/^error: \.nudge\/rules\.yaml:4:\d+: rule "slow": \w+ is not a valid/);
        return;
      }
      expect(run.exitCode, run.stderr).toBe(0);
      expect((JSON.parse(run.stdout) as { decision: { action: string } | null }).decision?.action ?? null).toBe(
        matches ? "deny" : null,
      );
    },
  );

  it("keeps the glob semantics: ** for any folders, * within one name, dotfiles, braces and classes", () => {
    const rules = rulesOf(
      `  - id: g\n    match: { path: ['src/**/*.{ts,tsx}', '**/.env*', 'docs/[!_]?.md', 'build/'] }\n    action: deny\n    message: no\n`,
    );
    const write = (file: string) =>
      evaluate(rules, {
        toolName: "Write",
        input: { file_path: `${ROOT}/${file}`, content: "" },
        cwd: ROOT,
        repoRoot: ROOT,
      })?.rule.id ?? null;
    for (const hit of ["src/a.ts", "src/x/y/b.tsx", ".env", "deep/er/.env.local", "docs/ab.md", "build/out/x.js"])
      expect(write(hit), hit).toBe("g");
    for (const miss of ["src/a.js", "lib/src/a.ts", "docs/_a.md", "docs/abc.md", "rebuild/x"])
      expect(write(miss), miss).toBeNull();
  });
});

describe("a rule's message", () => {
  it("with an escape sequence is refused at load, with line and column (it was shown raw in ⚖ lines and rules test)", () => {
    expect(() =>
      rulesOf(`  - id: noteit\n    match: { path: '**' }\n    action: note\n    message: "note \\e[31mRED\\e[0m"\n`),
    ).toThrow(/^\.nudge\/rules\.yaml:\d+:\d+: rule "noteit": message holds a control character/);
  });
});

describe("a path rule and symlinks", () => {
  it("a deny rule sees the file a link reaches; an allow rule needs both names to match (QA)", async () => {
    const repo = await gitdir({ ".env": "DB_PASSWORD=x\n", "secrets/a": "s\n", "src/ok.ts": "x\n" });
    symlinkSync(".env", path.join(repo, "envlink"));
    symlinkSync("secrets", path.join(repo, "seclink"));
    symlinkSync("../.env", path.join(repo, "src", "env.ts"));
    symlinkSync("../secrets/new.txt", path.join(repo, "src", "dangling")); // its target is not written yet
    symlinkSync("secrets/new.txt", path.join(repo, "newlink"));
    const rules = parseRules(
      "version: 1\nrules:\n  - id: secrets\n    match: { path: ['.env', '/secrets/**'] }\n    action: deny\n    message: no\n  - id: src\n    match: { tool: Read, path: 'src/**' }\n    action: allow\n",
      ".nudge/rules.yaml",
    );
    const read = (file: string) =>
      evaluate(rules, { toolName: "Read", input: { file_path: file }, cwd: repo, repoRoot: repo })?.rule.id ?? null;
    expect(read("envlink")).toBe("secrets");
    expect(read("seclink/a")).toBe("secrets");
    expect(read("seclink/not-yet-written")).toBe("secrets");
    expect(read("src/ok.ts")).toBe("src");
    expect(read("src/env.ts")).toBe("secrets"); // the link's own name is under src/, what it reaches is .env
    expect(read("src/dangling")).toBe("secrets");
    expect(read("newlink")).toBe("secrets");
    const allowOnly = parseRules(
      "version: 1\nrules:\n  - id: src\n    match: { tool: Read, path: 'src/**' }\n    action: allow\n",
      ".nudge/rules.yaml",
    );
    const allowed = (file: string) =>
      evaluate(allowOnly, { toolName: "Read", input: { file_path: file }, cwd: repo, repoRoot: repo })?.rule.id ?? null;
    expect(allowed("src/ok.ts")).toBe("src");
    expect(allowed("src/env.ts")).toBeNull();
    expect(allowed("src/dangling")).toBeNull();
    // A path longer than any tool takes is matched as written, at once.
    expect(allowed(`src/${"a/".repeat(30_000)}f`)).toBe("src");
  });
});
