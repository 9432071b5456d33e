/**
 * The single source of truth for `.nudge/rules.yaml`. `schemas/rules.schema.json` is generated
 * from this (npm run schemas) and a test fails when it is stale. Every object is strict: a typo
 * in a key ("comand") must fail loudly, never silently turn a rule off.
 */
import * as z from "../base/zod.js";

const RULES_FORMAT = 1;

/** The tools whose input names a file (`file_path`, or `notebook_path` for NotebookEdit). */
export const PATH_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit", "Read"] as const;
/** The tools that carry new text: Write's content, Edit's and MultiEdit's new_string, NotebookEdit's new_source. */
export const CONTENT_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit"] as const;
export const COMMAND_TOOLS = ["Bash"] as const;

export const RULE_ACTIONS = ["deny", "ask", "allow", "note"] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

const oneOrMore = <T extends z.ZodMiniType>(item: T) => z.union([item, z.array(item).check(z.minLength(1))]);

const RuleMatchSchema = z
  .strictObject({
    tool: z
      .optional(oneOrMore(z.string().check(z.minLength(1))))
      .check(
        z.describe("tool name(s), exactly as claude names them: Bash, Write, Edit, Read, mcp__github__create_issue, …"),
      ),
    path: z
      .optional(oneOrMore(z.string().check(z.minLength(1))))
      .check(
        z.describe(
          "glob(s) on the file of Write, Edit, MultiEdit, NotebookEdit, Read (* ** ? [abc] {a,b}), as in .gitignore: relative to the repository root; without a / (or only a trailing one) at any depth; /src/** anchored at the root; //etc/** or ~/.ssh/** absolute, the only patterns that reach files outside the repository",
        ),
      ),
    command: z
      .optional(z.string().check(z.minLength(1)))
      .check(
        z.describe(
          "regular expression (RE2 syntax: no lookaround or backreferences). deny, ask, note: searched in Bash's whole command and in each simple command in it, ^ and $ at each line. allow: must match each simple command whole, and the command must be plain (no substitution, subshell, here-document, compound command or control character)",
        ),
      ),
    content: z
      .optional(z.string().check(z.minLength(1)))
      .check(
        z.describe(
          "regular expression (RE2 syntax) searched in the new text: Write's content, Edit's new_string, any of MultiEdit's new_strings, NotebookEdit's new_source",
        ),
      ),
  })
  .check(
    z.describe("what the rule matches; every field given must match"),
    z.meta({ id: "RuleMatch", minProperties: 1 }),
  );

const id = z
  .string()
  .check(
    z.regex(
      /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
      "a rule id is letters, digits, '-', '_' or '.' (at most 64), like no-npm",
    ),
    z.describe("names the rule in `nudge rules list`, in what claude is told, and in the session record"),
    z.meta({ id: "RuleId" }),
  );
const message = z.string().check(z.trim(), z.minLength(1));

const rule = <A extends RuleAction, M extends z.ZodMiniType>(action: A, msg: M, about: string) =>
  z.strictObject({ id, match: RuleMatchSchema, action: z.literal(action), message: msg }).check(z.describe(about));

const RuleSchema = z.discriminatedUnion("action", [
  rule(
    "deny",
    message.check(z.describe("what claude receives instead of the tool's result: say what to do instead")),
    "deny: the tool does not run",
  ),
  rule(
    "ask",
    z.optional(message).check(z.describe("shown to the user with the permission prompt")),
    "ask: the user decides, as a permission prompt",
  ),
  rule(
    "allow",
    z.optional(message).check(z.describe("kept in the session record")),
    "allow: the tool runs without a permission prompt",
  ),
  rule(
    "note",
    message.check(z.describe("sent to claude right after the tool's result")),
    "note: the tool is asked or allowed as usual; after it runs claude receives the message",
  ),
]);
export type RuleSpec = z.infer<typeof RuleSchema>;

export const RulesFileSchema = z.strictObject({
  version: z.literal(RULES_FORMAT).check(z.describe("the rules file format; 1")),
  rules: z
    .array(RuleSchema)
    .check(z.describe("in evaluation order: the first rule that matches a tool call decides it")),
});
