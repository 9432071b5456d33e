import { Command } from "commander";
import * as z from "../base/zod.js";
import { describeMatch, ruleJson } from "../rules/describe-rule.js";
import { loadRules } from "../rules/load-rules.js";
import { repoRoot } from "../snapshot/git.js";
import { oneLine } from "../base/format.js";
import { printJson, printTable, writeOut } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";

const Options = z.object({ json: z.optional(z.boolean()) });

export const rulesListCommand = new Command("list")
  .alias("ls")
  .description("list the repository's rules in evaluation order (the first match decides a tool call)")
  .option("--json", "machine-readable output")
  .addHelpText(
    "after",
    `
Loading the list also checks the file: a broken rules file is reported here as it would be at
the start of a session.

Examples:
  $ nudge rules list
  $ nudge rules list --json | jq '.rules[] | select(.action == "deny") | .id'`,
  )
  .action(async (raw: unknown) => {
    const options = parseOptions(Options, raw);
    const rules = await loadRules(await repoRoot(process.cwd()));
    if (options.json) return printJson({ file: rules.file, rules: rules.rules.map(ruleJson) });
    if (!rules.file)
      return void writeOut("no rules file in this repository (.nudge/rules.yaml); claude's own permissions decide\n");
    if (rules.rules.length === 0) return void writeOut(`${rules.file} has no rules\n`);
    printTable(
      ["#", "ID", "ACTION", "MATCHES", "MESSAGE"],
      rules.rules.map((r) => [String(r.position), r.id, r.action, describeMatch(r), oneLine(r.message ?? "", 60)]),
    );
  });
