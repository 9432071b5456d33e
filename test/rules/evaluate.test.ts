/** Which rule decides a tool call: the first match in file order, with every given field matching. */
import os from "node:os";
import { describe, expect, it } from "vitest";
import { evaluate, type ToolCall } from "../../src/rules/evaluate.js";
import { parseRules, type RuleSet } from "../../src/rules/parse-rules.js";

const ROOT = "/home/ana/app";
const rulesOf = (yaml: string): RuleSet => parseRules(`version: 1\nrules:\n${yaml}`, ".nudge/rules.yaml");
const call = (toolName: string, input: Record<string, unknown>, cwd = ROOT): ToolCall => ({
  toolName,
  input,
  cwd,
  repoRoot: ROOT,
});
const decided = (rules: RuleSet, c: ToolCall) => evaluate(rules, c)?.rule.id ?? null;

describe("evaluate", () => {
  it("lets the first matching rule in file order decide, whatever the later rules say", () => {
    const rules = rulesOf(`
  - id: tests-ok
    match: { command: '^pnpm test( --\\w+)*$' }
    action: allow
  - id: ask-pnpm
    match: { command: '^pnpm' }
    action: ask
  - id: all-bash
    match: { tool: Bash }
    action: note
    message: careful
`);
    expect(decided(rules, call("Bash", { command: "pnpm test --run" }))).toBe("tests-ok");
    expect(decided(rules, call("Bash", { command: "pnpm install" }))).toBe("ask-pnpm");
    expect(evaluate(rules, call("Bash", { command: "ls" }))).toMatchObject({ action: "note", message: "careful" });
    expect(decided(rules, call("Read", { file_path: `${ROOT}/a` }))).toBeNull();
  });

  it("needs every match field to match", () => {
    const rules = rulesOf(`
  - id: typed
    match: { tool: Edit, path: 'src/**', content: ':\\s*any\\b' }
    action: note
    message: no any
`);
    const edit = (file: string, text: string) =>
      call("Edit", { file_path: `${ROOT}/${file}`, old_string: "x", new_string: text });
    expect(decided(rules, edit("src/a.ts", "let x: any"))).toBe("typed");
    expect(decided(rules, edit("test/a.ts", "let x: any"))).toBeNull(); // path does not match
    expect(decided(rules, edit("src/a.ts", "let x: anything"))).toBeNull(); // content does not match
    expect(decided(rules, call("Write", { file_path: `${ROOT}/src/a.ts`, content: "x: any" }))).toBeNull(); // tool does not match
  });

  it("searches the command anywhere, with ^ and $ at every line, and tells npm from pnpm with \\b", () => {
    const rules = rulesOf(`
  - id: no-npm
    match: { command: '\\bnpm\\b' }
    action: deny
    message: use pnpm
  - id: no-rm-line
    match: { command: '^rm ' }
    action: deny
    message: no rm
`);
    expect(decided(rules, call("Bash", { command: "cd web && npm ci" }))).toBe("no-npm");
    expect(decided(rules, call("Bash", { command: "pnpm install" }))).toBeNull();
    expect(decided(rules, call("Bash", { command: "ls\nrm -rf build" }))).toBe("no-rm-line");
    expect(decided(rules, call("Bash", { command: "echo rm x" }))).toBeNull();
  });

  it("matches paths relative to the repository root; a pattern without / matches at any depth, dotfiles included", () => {
    const rules = rulesOf(`
  - id: env
    match: { path: ['.env', '*.pem'] }
    action: deny
    message: secrets
  - id: src-only
    match: { path: 'src/*.ts' }
    action: ask
  - id: dot-dirs
    match: { path: '**/*.yml' }
    action: ask
`);
    const write = (file: string, cwd = ROOT) => call("Write", { file_path: file, content: "" }, cwd);
    expect(decided(rules, write(`${ROOT}/.env`))).toBe("env");
    expect(decided(rules, write(`${ROOT}/deploy/keys/site.pem`))).toBe("env");
    expect(decided(rules, write(`${ROOT}/src/a.ts`))).toBe("src-only");
    expect(decided(rules, write(`${ROOT}/lib/src/a.ts`))).toBeNull(); // a pattern with / is anchored at the root
    expect(decided(rules, write(`${ROOT}/.github/workflows/ci.yml`))).toBe("dot-dirs");
    // A relative file_path is taken from the hook's cwd.
    expect(decided(rules, write("a.ts", `${ROOT}/src`))).toBe("src-only");
    expect(decided(rules, write("../src/a.ts", `${ROOT}/docs`))).toBe("src-only");
  });

  it("reads path patterns as .gitignore and claude's permission rules do: /x anchored, x/ a folder, //x absolute", () => {
    const rules = rulesOf(`
  - id: root-dist
    match: { path: '/dist/**' }
    action: deny
    message: built files
  - id: any-build-dir
    match: { path: 'build/' }
    action: deny
    message: built files
  - id: system
    match: { path: '//etc/**' }
    action: deny
    message: not the system
  - id: ssh
    match: { path: '~/.ssh/**' }
    action: deny
    message: no keys
  - id: any-pem
    match: { path: '*.pem' }
    action: ask
`);
    const read = (file: string) => decided(rules, call("Read", { file_path: file }));
    expect(read(`${ROOT}/dist/app.js`)).toBe("root-dist");
    expect(read(`${ROOT}/web/dist/app.js`)).toBeNull(); // /dist is the root's dist only
    expect(read(`${ROOT}/web/build/out/app.js`)).toBe("any-build-dir");
    expect(read("/etc/passwd")).toBe("system");
    expect(read(`${os.homedir()}/.ssh/id_ed25519`)).toBe("ssh");
    expect(read(`${ROOT}/certs/site.pem`)).toBe("any-pem");
    // Patterns without // or ~/ are about the repository: they never reach a file outside it.
    expect(read("/tmp/other/site.pem")).toBeNull();
    expect(read("/home/ana/app-other/dist/x")).toBeNull(); // a sibling folder is outside, not "dist" of the root
  });

  it("reads each file tool's own fields: MultiEdit's edits, NotebookEdit's notebook_path and new_source", () => {
    const rules = rulesOf(`
  - id: no-todo
    match: { content: 'TODO' }
    action: note
    message: file an issue instead
  - id: notebooks
    match: { path: '*.ipynb' }
    action: ask
`);
    const multi = (texts: string[]) =>
      call("MultiEdit", { file_path: `${ROOT}/a.ts`, edits: texts.map((t) => ({ old_string: "x", new_string: t })) });
    expect(decided(rules, multi(["fine", "// TODO later"]))).toBe("no-todo");
    expect(decided(rules, multi(["fine", "also fine"]))).toBeNull();
    expect(decided(rules, call("Write", { file_path: `${ROOT}/a.ts`, content: "TODO" }))).toBe("no-todo");
    expect(decided(rules, call("NotebookEdit", { notebook_path: `${ROOT}/n.ipynb`, new_source: "TODO" }))).toBe(
      "no-todo",
    );
    expect(decided(rules, call("NotebookEdit", { notebook_path: `${ROOT}/n.ipynb`, new_source: "x = 1" }))).toBe(
      "notebooks",
    );
    expect(decided(rules, call("Read", { file_path: `${ROOT}/n.ipynb` }))).toBe("notebooks");
  });

  it("never matches on a field the input lacks or holds as another type, and never throws", () => {
    const rules = rulesOf(`
  - id: any-bash
    match: { command: '.*' }
    action: deny
    message: no
  - id: any-path
    match: { path: '**' }
    action: deny
    message: no
  - id: any-content
    match: { content: '^' }
    action: deny
    message: no
`);
    for (const input of [
      {},
      { command: 42 },
      { file_path: null },
      { file_path: "" },
      { edits: "nope" },
      { edits: [null, 3, { new_string: 1 }] },
      { content: ["x"] },
    ]) {
      for (const tool of ["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "Read"]) {
        expect(
          decided(rules, call(tool, input as Record<string, unknown>)),
          `${tool} ${JSON.stringify(input)}`,
        ).toBeNull();
      }
    }
    expect(decided(rules, call("bash", { command: "ls" }))).toBeNull(); // tool names are case-sensitive
  });
});
