/**
 * A broken rules file is one clear error, at load, naming the file, line:column and rule — never a
 * rule that silently does nothing.
 */
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/base/errors.js";
import { parseRules } from "../../src/rules/parse-rules.js";

const FILE = ".nudge/rules.yaml";

function problem(text: string): UserError {
  try {
    parseRules(text, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return error as UserError;
  }
  throw new Error("the file was accepted");
}

const rule = (body: string) => `version: 1\nrules:\n  - id: r1\n${body}`;

describe("parseRules: a valid file", () => {
  it("keeps the rules in file order with lists normalized and the tools each can match", () => {
    const set = parseRules(
      `version: 1
rules:
  - id: no-npm
    match: { tool: Bash, command: '\\bnpm\\b' }
    action: deny
    message: |
      Use pnpm.
  - id: secrets
    match: { path: .env }
    action: ask
  - id: typed
    match: { path: ['src/**'], content: 'any' }
    action: note
    message: no any
`,
      FILE,
    );
    expect(set.file).toBe(FILE);
    expect(set.rules.map((r) => [r.id, r.position, r.action, r.message])).toEqual([
      ["no-npm", 1, "deny", "Use pnpm."], // a YAML block's trailing newline is trimmed
      ["secrets", 2, "ask", null],
      ["typed", 3, "note", "no any"],
    ]);
    expect(set.rules[0]!.match).toEqual({ tool: ["Bash"], path: undefined, command: "\\bnpm\\b", content: undefined });
    expect(set.rules[1]!.tools).toEqual(["Write", "Edit", "MultiEdit", "NotebookEdit", "Read"]);
    expect(set.rules[2]!.tools).toEqual(["Write", "Edit", "MultiEdit", "NotebookEdit"]);
  });

  it("accepts an empty rule list, and JSON (which is YAML)", () => {
    expect(parseRules("version: 1\nrules: []\n", FILE).rules).toEqual([]);
    const json = parseRules('{"version":1,"rules":[{"id":"a","match":{"tool":"Read"},"action":"allow"}]}', FILE);
    expect(json.rules[0]!.id).toBe("a");
  });
});

describe("parseRules: a broken file", () => {
  it.each([
    [
      "YAML syntax, with line and column",
      "version: 1\nrules:\n  - id: a\n    match: {tool: Bash\n",
      ".nudge/rules.yaml:5:1: not valid YAML: Flow map",
      "fix the YAML at that line",
    ],
    [
      "a duplicate key",
      "version: 1\nversion: 1\nrules: []\n",
      ".nudge/rules.yaml:2:1: not valid YAML: Map keys must be unique",
      "fix the YAML",
    ],
    ["an empty file", "# nothing yet\n", ".nudge/rules.yaml: the rules file is empty", "version: 1"],
    ["a list at the top", "- a\n", ".nudge/rules.yaml:1:1: must be a mapping with version and rules", "version: 1"],
    ["no version", "rules: []\n", ".nudge/rules.yaml:1:1: version is missing", "version: 1"],
    [
      "a newer version",
      "version: 2\nrules: []\n",
      "this rules file is version 2; this nudge reads version 1",
      "update nudge",
    ],
    [
      "an unknown key in match",
      rule("    match:\n      tool: Bash\n      comand: x\n    action: ask\n"),
      '.nudge/rules.yaml:6:7: rule "r1": unknown key "comand" in match',
      "tool, path, command, content",
    ],
    [
      "an unknown key in a rule",
      rule("    match: {tool: Bash}\n    action: ask\n    mesage: hi\n"),
      '.nudge/rules.yaml:6:5: rule "r1": unknown key "mesage"',
      "id, match, action, message",
    ],
    [
      "an unknown key at the top",
      "version: 1\nrule: []\n",
      '.nudge/rules.yaml:2:1: unknown key "rule"',
      "version, rules",
    ],
    [
      "deny without a message",
      rule("    match: {tool: Bash}\n    action: deny\n"),
      '.nudge/rules.yaml:3:5: rule "r1": message is missing',
      "deny and note rules need a message",
    ],
    [
      "note without a message",
      rule("    match: {tool: Bash}\n    action: note\n"),
      'rule "r1": message is missing',
      "need a message",
    ],
    [
      "an unknown action",
      rule("    match: {tool: Bash}\n    action: block\n"),
      '.nudge/rules.yaml:5:13: rule "r1": unknown action "block"',
      "deny, ask, allow, note",
    ],
    ["no action", rule("    match: {tool: Bash}\n"), 'rule "r1": action is missing', "deny, ask, allow, note"],
    [
      "no id",
      "version: 1\nrules:\n  - match: {tool: Bash}\n    action: ask\n",
      "rule 1: id is missing",
      "schemas/rules.schema.json",
    ],
    [
      "an id with a space",
      "version: 1\nrules:\n  - id: no npm\n    match: {tool: Bash}\n    action: ask\n",
      '.nudge/rules.yaml:3:9: rule "no npm": id: a rule id is letters',
      "schemas/rules.schema.json",
    ],
    [
      "a duplicate id",
      rule("    match: {tool: Bash}\n    action: ask\n  - id: r1\n    match: {tool: Read}\n    action: ask\n"),
      '.nudge/rules.yaml:6:9: rule "r1": the id is already used by rule 1',
      "its own id",
    ],
    [
      "an empty match",
      rule("    match: {}\n    action: ask\n"),
      '.nudge/rules.yaml:4:12: rule "r1": match is empty',
      "at least one of tool, path, command, content",
    ],
    [
      "an invalid regex",
      rule("    match: {command: 'rm (-rf'}\n    action: ask\n"),
      '.nudge/rules.yaml:4:22: rule "r1": command is not a valid regular expression: missing closing ): `rm (-rf`',
      "escape a literal (",
    ],
    [
      "an invalid content regex",
      rule("    match: {content: '[a-'}\n    action: ask\n"),
      'rule "r1": content is not a valid regular expression',
      "RE2",
    ],
    [
      'a double-quoted "\\b" (a backspace in YAML)',
      rule('    match: {command: "\\bnpm"}\n    action: ask\n'),
      'rule "r1": command holds a control character',
      "single quotes",
    ],
    [
      "an unclosed glob brace",
      rule("    match: {path: 'a.{ts'}\n    action: ask\n"),
      '.nudge/rules.yaml:4:19: rule "r1": path "a.{ts" is not a valid glob',
      "globs are * ** ?",
    ],
    [
      "an unclosed glob bracket in a list",
      rule("    match: {path: [ok, 'src/[ab']}\n    action: ask\n"),
      '.nudge/rules.yaml:4:24: rule "r1": path "src/[ab" is not a valid glob',
      "globs are * ** ?",
    ],
    [
      "a negated glob",
      rule("    match: {path: '!src/**'}\n    action: ask\n"),
      'rule "r1": path "!src/**": negated globs are not supported',
      "first matching rule wins",
    ],
    [
      "a path rule on Bash",
      rule("    match: {tool: Bash, path: 'src/**'}\n    action: ask\n"),
      'rule "r1": path never applies to the tools it names (Bash)',
      "could never match",
    ],
    [
      "a command rule on Write",
      rule("    match: {tool: [Write, Edit], command: x}\n    action: ask\n"),
      "command never applies to the tools it names (Write, Edit)",
      "Bash only",
    ],
    [
      "command and content together",
      rule("    match: {command: x, content: y}\n    action: ask\n"),
      'rule "r1": command and content never apply to the same tool',
      "command applies to Bash only; content applies to Write",
    ],
    [
      "a miscased tool",
      rule("    match: {tool: bash}\n    action: ask\n"),
      'rule "r1": no tool is called "bash"',
      "did you mean Bash?",
    ],
    [
      "a tool that is not a text",
      rule("    match: {tool: [Bash, 3]}\n    action: ask\n"),
      'rule "r1": tool must be a text or a list of texts',
      "schemas/rules.schema.json",
    ],
    [
      "an empty tool list",
      rule("    match: {tool: []}\n    action: ask\n"),
      'rule "r1": tool must not be empty',
      "schemas/rules.schema.json",
    ],
    ["an alias to no anchor", "version: 1\nrules: *none\n", "not valid YAML", "fix the YAML"],
  ])("%s", (_name, text, message, hint) => {
    const error = problem(text);
    expect(error.message).toContain(message);
    expect(error.hint).toContain(hint);
    expect(error.message).not.toContain("\n");
  });

  it("says how many more problems there are beyond the first", () => {
    const error = problem(
      "version: 1\nrules:\n  - id: a\n    match: {tool: Bash}\n  - id: b\n    match: {tool: Bash}\n",
    );
    expect(error.message).toBe('.nudge/rules.yaml:3:5: rule "a": action is missing (and 1 more problem)');
  });
});
