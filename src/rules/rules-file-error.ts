/**
 * Every way a rules file can be broken becomes one UserError that names the file, the line and
 * column, and the rule — like a compiler's message — so it is fixed before a session starts.
 */
import type { Document, LineCounter } from "yaml";
import { isMap, isScalar } from "yaml";
import type * as z from "../base/zod.js";
import { UserError } from "../base/errors.js";

type Path = ReadonlyArray<PropertyKey>;

const KEYS: Record<string, string> = {
  file: "version, rules",
  rule: "id, match, action, message",
  match: "tool, path, command, content",
};

export class RulesFileProblems {
  constructor(
    /** The file as the user names it, relative to the repository root: `.nudge/rules.yaml`. */
    readonly file: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** A problem at a place in the document; `key` points at a key of that map rather than its value. */
  error(path: Path, message: string, hint: string, key?: string): UserError {
    return new UserError(`${this.file}${this.position(path, key)}: ${this.ruleName(path)}${message}`, hint);
  }

  /** The first thing zod objected to, in words that name the key, plus how many more there are. */
  fromZod(error: z.core.$ZodError): UserError {
    // A misspelt key usually also leaves a required one missing: name the typo, the real cause.
    const issue = error.issues.find((i) => i.code === "unrecognized_keys") ?? error.issues[0]!;
    const more =
      error.issues.length > 1
        ? ` (and ${error.issues.length - 1} more problem${error.issues.length > 2 ? "s" : ""})`
        : "";
    const { message, hint, key } = describeIssue(issue, this.doc.getIn(issue.path as PropertyKey[]));
    return this.error(issue.path, message + more, hint, key);
  }

  private ruleName(path: Path): string {
    if (path[0] !== "rules" || typeof path[1] !== "number") return "";
    const id = this.doc.getIn(["rules", path[1], "id"]);
    return typeof id === "string" ? `rule "${id}": ` : `rule ${path[1] + 1}: `;
  }

  private position(path: Path, key?: string): string {
    let node = this.doc.getIn(path as PropertyKey[], true) as { range?: [number, number, number] } | undefined;
    if (key !== undefined && isMap(node))
      node = node.items.find((p) => isScalar(p.key) && p.key.value === key)?.key as typeof node;
    // A missing key has no node of its own: point at the object that lacks it.
    for (let up = path.length - 1; !node?.range && up >= 0; up--)
      node = this.doc.getIn(path.slice(0, up) as PropertyKey[], true) as typeof node;
    if (!node?.range) return "";
    const { line, col } = this.lines.linePos(node.range[0]);
    return `:${line}:${col}`;
  }
}

function describeIssue(issue: z.core.$ZodIssue, value: unknown): { message: string; hint: string; key?: string } {
  const path = issue.path;
  const name = path.length ? String(path[path.length - 1]) : "the file";
  const where =
    path.length === 0
      ? "file"
      : path[path.length - 1] === "match"
        ? "match"
        : path.length === 2 && path[0] === "rules"
          ? "rule"
          : "";
  const schemaHint = "the format is in schemas/rules.schema.json; `nudge rules list` checks the file";
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    return {
      message: `unknown key ${keys}${where === "match" ? " in match" : ""}`,
      hint: where
        ? `the keys here are ${KEYS[where]}; a misspelt key would silently disable a rule, so nudge refuses it`
        : schemaHint,
      key: issue.keys[0],
    };
  }
  if (issue.code === "invalid_union" && "discriminator" in issue && issue.discriminator === "action") {
    return {
      message: value === undefined ? "action is missing" : `unknown action ${JSON.stringify(value)}`,
      hint: "action is one of deny, ask, allow, note",
    };
  }
  if (path.length === 1 && path[0] === "version") {
    if (typeof value === "number" && value > 1)
      return { message: `this rules file is version ${value}; this nudge reads version 1`, hint: "update nudge" };
    return {
      message: value === undefined ? "version is missing" : `version must be 1, not ${JSON.stringify(value)}`,
      hint: "start the file with `version: 1`",
    };
  }
  if (issue.code === "invalid_type" && value === undefined) {
    const hint =
      name === "message" ? "deny and note rules need a message: what claude should do instead, or know" : schemaHint;
    return { message: `${name} is missing`, hint };
  }
  if (issue.code === "invalid_type" && path.length === 0)
    return {
      message: "must be a mapping with version and rules",
      hint: "start the file with `version: 1` and a `rules:` list",
    };
  if (issue.code === "invalid_union" && (name === "tool" || name === "path")) {
    return { message: `${name} must be a text or a list of texts`, hint: schemaHint };
  }
  if (issue.code === "too_small") return { message: `${name} must not be empty`, hint: schemaHint };
  return { message: `${name}: ${issue.message}`, hint: schemaHint };
}
