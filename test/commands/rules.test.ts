/** `nudge rules list` and `nudge rules test`, through the built CLI, on real temp repositories. */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { copyFixture } from "../support/fixture-dir.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

async function repoWith(fixture: string): Promise<string> {
  return copyFixture("rules", fixture, await gitdir());
}

describe("nudge rules list", () => {
  it("lists the rules in evaluation order, one line each", async () => {
    const run = await runNudge(["rules", "list"], { cwd: await repoWith("sample") });
    expect(run.exitCode, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^#\s+ID\s+ACTION\s+MATCHES\s+MESSAGE$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 4))).toEqual([
      ["1", "no-npm", "deny", "Bash · command /\\bnpm\\b/"],
      ["2", "ask-before-push", "ask", "Bash · command /\\bgit\\s+push\\b/"],
      ["3", "secrets", "deny", "Write|Edit|MultiEdit|NotebookEdit|Read · path .env, *.pem, secrets/**"],
      ["4", "tests-run-freely", "allow", "Bash · command /^pnpm (test|vitest)\\b/"],
      ["5", "typed-code", "note", "Write|Edit|MultiEdit|NotebookEdit · path src/**/*.ts · content /:\\s*any\\b/"],
    ]);
  });

  it("--json gives the file and each rule's id, action, tools, match and message", async () => {
    const run = await runNudge(["rules", "list", "--json"], { cwd: await repoWith("yml") });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      file: ".nudge/rules.yml",
      rules: [
        {
          id: "no-curl",
          position: 1,
          action: "deny",
          tools: ["Bash"],
          match: { command: "\\bcurl\\b" },
          message: "No network access from this repository's sessions.",
        },
      ],
    });
  });

  it("says so, and exits 0, when the repository has no rules file", async () => {
    const run = await runNudge(["rules", "list"], { cwd: await gitdir() });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe("no rules file in this repository (.nudge/rules.yaml); claude's own permissions decide");
    expect(JSON.parse((await runNudge(["rules", "ls", "--json"], { cwd: await gitdir() })).stdout)).toEqual({
      file: null,
      rules: [],
    });
  });

  it.each([
    [
      "unknown-key",
      'error: .nudge/rules.yaml:6:7: rule "no-npm": unknown key "comand" in match',
      "hint: the keys here are tool, path, command, content",
    ],
    ["broken-yaml", "error: .nudge/rules.yaml:5:5: not valid YAML: ", "hint: fix the YAML at that line"],
    [
      "bad-glob",
      'error: .nudge/rules.yaml:4:20: rule "lockfiles": path "pnpm-lock.{yaml" is not a valid glob',
      "hint: globs are * ** ?",
    ],
  ])("reports a broken file (%s) as one error and a hint, exit 1", async (fixture, error, hint) => {
    const run = await runNudge(["rules", "list"], { cwd: await repoWith(fixture) });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe("");
    const [first, second, ...rest] = run.stderr.trimEnd().split("\n");
    expect(first).toContain(error);
    expect(second).toContain(hint);
    expect(rest).toEqual([]);
  });

  it("works from a subfolder, and refuses outside a git repository", async () => {
    const repo = await repoWith("yml");
    mkdirSync(path.join(repo, "deep/er"), { recursive: true });
    expect((await runNudge(["rules", "list"], { cwd: path.join(repo, "deep/er") })).stdout).toContain("no-curl");
    const outside = await runNudge(["rules", "list"], { cwd: tempDir() });
    expect(outside.exitCode).toBe(1);
    expect(outside.stderr).toContain("not a git repository");
  });
});

describe("nudge rules test", () => {
  it("names the deciding rule and what claude receives for a deny, exit 0", async () => {
    const run = await runNudge(["rules", "test", "Bash", '{"command":"npm install"}'], {
      cwd: await repoWith("sample"),
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      [
        "rule no-npm (1 of 5 in .nudge/rules.yaml) matches Bash(npm install)",
        "  matches: Bash · command /\\bnpm\\b/",
        "  action:  deny",
        "the call does not run; claude receives as its error result:",
        `  PreToolUse:Bash hook error: Blocked by the project's rule "no-npm": This repository uses pnpm. Run the same command with pnpm (pnpm install, pnpm add, pnpm run).`,
      ].join("\n"),
    );
  });

  it("resolves a relative file_path from the current folder and shows a note's text", async () => {
    const repo = await repoWith("sample");
    mkdirSync(path.join(repo, "src"));
    const run = await runNudge(
      ["rules", "test", "Edit", '{"file_path":"util/a.ts","old_string":"x","new_string":"let v: any"}'],
      { cwd: path.join(repo, "src") },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("rule typed-code (5 of 5 in .nudge/rules.yaml) matches Edit(src/util/a.ts)");
    expect(run.stdout).toContain(
      'after it runs, claude receives:\n  PostToolUse:Edit hook additional context: Note from the project\'s rule "typed-code": Avoid `any`',
    );
  });

  it("exits 0 when no rule matches, and says claude's permissions decide", async () => {
    const run = await runNudge(["rules", "test", "Bash", '{"command":"pnpm install"}'], {
      cwd: await repoWith("sample"),
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe("no rule matches Bash(pnpm install): claude's own permissions decide, as without rules");
  });

  it("--json carries the decision and the exact hook outputs nudge would send", async () => {
    const run = await runNudge(["rules", "test", "Bash", '{"command":"git push origin main"}', "--json"], {
      cwd: await repoWith("sample"),
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.decision).toMatchObject({
      action: "ask",
      message: "Pushing publishes the branch.",
      rule: { id: "ask-before-push", position: 2 },
    });
    expect(out.preToolUse).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: "rule ask-before-push: Pushing publishes the branch.",
      },
    });
    expect(out.claudeReceives).toBeNull();
    const none = JSON.parse(
      (
        await runNudge(["rules", "test", "Read", '{"file_path":"README.md"}', "--json"], {
          cwd: await repoWith("sample"),
        })
      ).stdout,
    );
    expect(none.decision).toBeNull();
  });

  it("reads the input from stdin with -", async () => {
    const run = await runNudge(["rules", "test", "Write", "-"], {
      cwd: await repoWith("sample"),
      input: '{"file_path":"config/.env","content":"KEY=1"}',
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("rule secrets (3 of 5 in .nudge/rules.yaml) matches Write(config/.env)");
  });

  it("warns about a tool name or input no rule could look at", async () => {
    const run = await runNudge(["rules", "test", "bash", '{"cmd":"npm i"}'], { cwd: await repoWith("sample") });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('! claude has no tool "bash"; tool names are case-sensitive: did you mean Bash?');
    const missing = await runNudge(["rules", "test", "Bash", '{"cmd":"npm i"}'], { cwd: await repoWith("sample") });
    expect(missing.stderr).toContain('! the input has no "command" text, so no rule on command can match it');
    // Without a rules file nothing could match anyway: no warning about what rules look at.
    const noRules = await runNudge(["rules", "test", "Bash", '{"cmd":"npm i"}'], { cwd: await gitdir() });
    expect(noRules.stdout).toMatch(/^no rules file in this repository/);
    expect(noRules.stderr).toBe("");
  });

  it.each([
    ['{command: "ls"}', "error: the tool input is not valid JSON: "],
    ['["ls"]', "error: the tool input must be a JSON object"],
    ["null", "error: the tool input must be a JSON object"],
  ])("refuses input %s with a hint, exit 1", async (input, error) => {
    const run = await runNudge(["rules", "test", "Bash", input], { cwd: await repoWith("sample") });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(error);
    expect(run.stderr).toContain(`hint: `);
    expect(run.stderr).toContain(`nudge rules test Bash '{"command":"npm install"}'`);
  });

  it("reports a broken rules file instead of testing against it, exit 1", async () => {
    const run = await runNudge(["rules", "test", "Bash", '{"command":"rm -rf x"}'], {
      cwd: await repoWith("bad-regex"),
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      'error: .nudge/rules.yaml:7:23: rule "no-rm": command is not a valid regular expression: missing closing ): `rm (-rf`',
    );
  });
});

describe("nudge rules --help", () => {
  it.each([["rules"], ["rules", "list"], ["rules", "test"]])("nudge %s --help has examples", async (...args) => {
    const run = await runNudge([...args, "--help"], { cwd: tempDir() });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("Examples:\n  $ nudge rules");
  });
});
