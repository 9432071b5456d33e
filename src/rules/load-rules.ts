/**
 * Find and load the repository's rules file: `.nudge/rules.yaml` (or `.yml`). YAML only — one
 * format to document and to point a schema at; JSON is valid YAML, so a JSON file named
 * rules.yaml works too. A rules.json or rules.toml is refused rather than ignored: a user who
 * wrote one expects it to apply.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import type { RuleSet } from "./parse-rules.js";

const RULES_DIR = ".nudge";
const NAMES = ["rules.yaml", "rules.yml"];
const OTHER_FORMATS = ["rules.json", "rules.toml", "rules.jsonc"];

/** No rules file: nothing is decided by rules. */
export const NO_RULES: RuleSet = { file: null, rules: [] };

/**
 * The rules of the repository at `repoRoot`; NO_RULES when it has no rules file. The parser
 * (yaml, re2js) is loaded only when there is a file to parse: most repositories have none, and
 * loading it cost `claude run` ~50 ms of its start-up.
 */
export async function loadRules(repoRoot: string): Promise<RuleSet> {
  const present = async (name: string) =>
    (await isFile(path.join(repoRoot, RULES_DIR, name))) ? `${RULES_DIR}/${name}` : null;
  const found = (await Promise.all(NAMES.map(present))).filter((f) => f !== null);
  if (found.length > 1)
    throw new UserError(`both ${found.join(" and ")} exist`, "keep one rules file: remove or merge the other");
  const file = found[0];
  if (!file) {
    const other = (await Promise.all(OTHER_FORMATS.map(present))).find((f) => f !== null);
    if (other)
      throw new UserError(
        `${other}: nudge reads rules from ${RULES_DIR}/rules.yaml only`,
        `rename it to ${RULES_DIR}/rules.yaml (JSON is valid YAML) or rewrite it in YAML`,
      );
    return NO_RULES;
  }
  const text = await fs.readFile(path.join(repoRoot, file), "utf8");
  const { parseRules } = await import("./parse-rules.js");
  return parseRules(text, file);
}

async function isFile(file: string): Promise<boolean> {
  return fs.stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}
