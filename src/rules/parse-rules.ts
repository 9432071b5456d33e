/**
 * A rules file's text → a checked, compiled rule set. Pure: everything that can be wrong with the
 * file (YAML syntax, an unknown key, a bad regex or glob, a rule that can never match) is found
 * here, at load, as one UserError — never mid-turn.
 */
import os from "node:os";
import { LineCounter, parseDocument } from "yaml";
import { errorMessage, UserError } from "../base/errors.js";
import { compileGlob, GlobError } from "./glob.js";
import { compilePattern, PatternError, type Pattern } from "./pattern.js";
import { RulesFileProblems } from "./rules-file-error.js";
import type { FilePaths } from "./tool-input.js";
import {
  COMMAND_TOOLS,
  CONTENT_TOOLS,
  PATH_TOOLS,
  RulesFileSchema,
  type RuleAction,
  type RuleSpec,
} from "./rules-schema.js";

export interface Rule {
  id: string;
  /** 1-based position in the file: the evaluation order. */
  position: number;
  action: RuleAction;
  message: string | null;
  /** The tool names the rule can match: those it names, narrowed by what path, command and content apply to. */
  tools: readonly string[];
  /** The match fields as written, normalized to lists, for display. */
  match: { tool?: string[]; path?: string[]; command?: string; content?: string };
  /** The match fields compiled: glob matchers and regular expressions. */
  compiled: { path?: (file: FilePaths) => boolean; command?: Pattern; content?: Pattern };
}

export interface RuleSet {
  /** The rules file relative to the repository root (`.nudge/rules.yaml`), or null when there is none. */
  file: string | null;
  rules: Rule[];
}

/** Built-in tool names, to catch `bash` for `Bash`; any other name (an MCP tool) is taken as written. */
const KNOWN_TOOLS = [
  "Agent",
  "AskUserQuestion",
  "Bash",
  "Edit",
  "ExitPlanMode",
  "Glob",
  "Grep",
  "MultiEdit",
  "NotebookEdit",
  "Read",
  "Task",
  "TodoWrite",
  "WebFetch",
  "WebSearch",
  "Write",
];

/** The built-in tool a miscased name means (`bash` → `Bash`), or null. */
export function miscasedTool(name: string): string | null {
  const known = KNOWN_TOOLS.find((k) => k.toLowerCase() === name.toLowerCase());
  return known && known !== name ? known : null;
}

export function parseRules(text: string, file: string): RuleSet {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const problems = new RulesFileProblems(file, doc, lines);
  const syntax = doc.errors[0];
  if (syntax) {
    const at = syntax.linePos?.[0];
    const where = at ? `:${at.line}:${at.col}` : "";
    throw yamlError(file, where, syntax.message);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw yamlError(file, "", errorMessage(error)); // an alias to a missing anchor, or an alias bomb
  }
  if (data === null || data === undefined) {
    throw problems.error(
      [],
      "the rules file is empty",
      "start it with `version: 1` and a `rules:` list (see `nudge rules --help`)",
    );
  }
  const parsed = RulesFileSchema.safeParse(data);
  if (!parsed.success) throw problems.fromZod(parsed.error);

  const seen = new Map<string, number>();
  const rules = parsed.data.rules.map((spec, i) => {
    const first = seen.get(spec.id);
    if (first !== undefined)
      throw problems.error(
        ["rules", i, "id"],
        `the id is already used by rule ${first + 1}`,
        "give every rule its own id",
      );
    seen.set(spec.id, i);
    return compileRule(spec, i, problems);
  });
  return { file, rules };
}

function yamlError(file: string, where: string, message: string): UserError {
  // yaml's messages end in " at line L, column C:" and a code excerpt; the position is already in front.
  const text = message.replace(/ at line \d+, column \d+:[\s\S]*$/, "").trim();
  return new UserError(
    `${file}${where}: not valid YAML: ${text}`,
    `fix the YAML${where ? " at that line" : ""}; a regex is safest in single quotes ('\\bnpm\\b')`,
  );
}

const list = (value: string | string[] | undefined) =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

function compileRule(spec: RuleSpec, i: number, problems: RulesFileProblems): Rule {
  const at = (field: string) => ["rules", i, "match", field];
  const match = {
    tool: list(spec.match.tool),
    path: list(spec.match.path),
    command: spec.match.command,
    content: spec.match.content,
  };
  if (!match.tool && !match.path && match.command === undefined && match.content === undefined) {
    throw problems.error(["rules", i, "match"], "match is empty", "give at least one of tool, path, command, content");
  }
  // A rules file comes with the repository: its message is shown on the terminal and sent to claude, never obeyed.
  if (spec.message !== undefined && /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/.test(spec.message)) {
    throw problems.error(
      ["rules", i, "message"],
      "message holds a control character (an escape sequence, a carriage return, a bidi override)",
      "write the message as plain text",
    );
  }
  for (const name of match.tool ?? []) {
    const known = miscasedTool(name);
    if (known)
      throw problems.error(
        at("tool"),
        `no tool is called "${name}"`,
        `tool names are case-sensitive: did you mean ${known}?`,
      );
  }
  // Each field narrows the tools the rule can apply to; a rule whose fields exclude each other is a mistake.
  let tools: readonly string[] | undefined = match.tool;
  const fields = [
    ["path", match.path !== undefined, PATH_TOOLS],
    ["command", match.command !== undefined, COMMAND_TOOLS],
    ["content", match.content !== undefined, CONTENT_TOOLS],
  ] as const;
  const given = fields.filter(([, present]) => present);
  for (const [field, , allowed] of given) {
    const next: readonly string[] =
      tools === undefined ? allowed : tools.filter((t) => (allowed as readonly string[]).includes(t));
    if (next.length === 0) {
      const applies = (f: string, to: readonly string[]) => `${f} applies to ${to.join(", ")} only`;
      if (match.tool)
        throw problems.error(
          at(field),
          `${field} never applies to the tools it names (${match.tool.join(", ")})`,
          `${applies(field, allowed)}, so this rule could never match`,
        );
      const [other, , otherAllowed] = given.find(([f]) => f !== field)!;
      throw problems.error(
        at(field),
        `${other} and ${field} never apply to the same tool`,
        `${applies(other, otherAllowed)}; ${applies(field, allowed)}`,
      );
    }
    tools = next;
  }

  return {
    id: spec.id,
    position: i + 1,
    action: spec.action,
    message: spec.message ?? null,
    tools: tools!, // match is not empty, so some field set it
    match,
    compiled: {
      path:
        match.path &&
        compileGlobs(match.path, (n) => (Array.isArray(spec.match.path) ? [...at("path"), n] : at("path")), problems),
      command: match.command === undefined ? undefined : compileRegex(match.command, at("command"), problems),
      content: match.content === undefined ? undefined : compileRegex(match.content, at("content"), problems),
    },
  };
}

function compileRegex(source: string, path: PropertyKey[], problems: RulesFileProblems): Pattern {
  const field = String(path[path.length - 1]);
  // In a double-quoted YAML string "\bnpm\b" is a backspace, npm, a backspace: a rule that never matches.
  if (/[\x00-\x08\x0b-\x1f]/.test(source)) {
    throw problems.error(
      path,
      `${field} holds a control character (a double-quoted "\\b" is a backspace in YAML)`,
      "write regular expressions in single quotes: '\\bnpm\\b'",
    );
  }
  try {
    return compilePattern(source);
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    throw problems.error(
      path,
      `${field} is not a valid regular expression: ${error.message}`,
      "patterns are RE2's (Perl syntax without lookaround or backreferences, so no pattern can hang nudge); escape a literal ( [ { . * + ? with \\ (in YAML, inside single quotes)",
    );
  }
}

/**
 * Path patterns read as in .gitignore and claude's own permission rules: `/src/**` and `src/*.ts`
 * are anchored at the repository root, a pattern without a slash (`*.pem`, `.env`) matches at any
 * depth, a trailing slash (`build/`) means everything under it; `//etc/**` and `~/.ssh/**` are
 * absolute, and only they reach files outside the repository.
 */
function compileGlobs(
  patterns: string[],
  at: (n: number) => PropertyKey[],
  problems: RulesFileProblems,
): (file: FilePaths) => boolean {
  const matchers = patterns.map((pattern, n) => {
    if (pattern.startsWith("!")) {
      throw problems.error(
        at(n),
        `path "${pattern}": negated globs are not supported`,
        "put a rule for the exceptions before this one: the first matching rule wins",
      );
    }
    const absolute = pattern.startsWith("//") || pattern.startsWith("~/");
    let glob: string;
    if (pattern.startsWith("//")) glob = pattern.slice(1);
    else if (pattern.startsWith("~/")) glob = os.homedir() + pattern.slice(1);
    else {
      const bare = pattern.replace(/^\.?\//, ""); // `/src/**` and `./src/**` are anchored at the root
      const anchored = bare !== pattern || bare.replace(/\/$/, "").includes("/");
      glob = anchored ? bare : `**/${bare}`;
    }
    if (glob.endsWith("/")) glob += "**";
    try {
      // Dotfiles match like any name: a rule on `**/*.env` must not skip `.config/x.env`.
      const test = compileGlob(glob);
      return absolute
        ? (file: FilePaths) => test(file.absolute)
        : (file: FilePaths) => file.relative !== null && test(file.relative);
    } catch (error) {
      if (!(error instanceof GlobError)) throw error;
      throw problems.error(
        at(n),
        `path "${pattern}" is not a valid glob: ${error.message}`,
        "globs are * ** ? [abc] [!abc] {a,b}; escape a literal bracket or brace with \\",
      );
    }
  });
  return (file) => matchers.some((m) => m(file));
}
