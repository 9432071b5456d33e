import { Command } from "commander";
import * as z from "../base/zod.js";
import { UserError } from "../base/errors.js";
import { describeMatch, ruleJson } from "../rules/describe-rule.js";
import { evaluate } from "../rules/evaluate.js";
import { postToolUseOutput, preToolUseOutput, whatClaudeReceives } from "../rules/hook-answers.js";
import { loadRules } from "../rules/load-rules.js";
import { miscasedTool } from "../rules/parse-rules.js";
import { PATH_TOOLS } from "../rules/rules-schema.js";
import { readShell } from "../rules/shell-commands.js";
import { callDetail, commandOf, showControls, type ToolCall } from "../rules/tool-input.js";
import { repoRoot } from "../snapshot/git.js";
import { printJson, writeOut, writeErr } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";

const Options = z.object({ json: z.optional(z.boolean()) });
const EXAMPLE = `nudge rules test Bash '{"command":"npm install"}'`;

export const rulesTestCommand = new Command("test")
  .description("show which rule decides a tool call, and what claude would receive")
  .argument("<tool>", "the tool's name as claude calls it: Bash, Write, Edit, Read, …")
  .argument("<input-json>", "the tool's input as a JSON object, or - to read it from stdin")
  .option("--json", "machine-readable output")
  .addHelpText(
    "after",
    `
A relative file_path is taken from the current folder. Exit code 0 whether or not a rule
matches (1 for a broken rules file or input); use --json and .decision to script on it.

Examples:
  $ ${EXAMPLE}
  $ nudge rules test Write '{"file_path":".env","content":"KEY=1"}'
  $ nudge rules test Edit - < edit-input.json
  $ nudge rules test Bash '{"command":"git push"}' --json | jq .decision.action`,
  )
  .action(async (tool: string, inputArg: string, raw: unknown) => {
    const options = parseOptions(Options, raw);
    const input = parseInput(inputArg === "-" ? await readStdin() : inputArg);
    const root = await repoRoot(process.cwd());
    const rules = await loadRules(root);
    const call: ToolCall = { toolName: tool, input, cwd: process.cwd(), repoRoot: root };
    // About what rules can match: no news without a rules file.
    if (rules.file) for (const warning of inputWarnings(call)) writeErr(`! ${warning}\n`);
    const decision = evaluate(rules, call);
    const receives = decision && whatClaudeReceives(decision, tool);
    const command = commandOf(call);
    const shell = command === null ? null : readShell(command);
    if (options.json) {
      return printJson({
        file: rules.file,
        call: { tool, detail: callDetail(call) },
        shell: shell && { commands: shell.commands, plain: shell.notPlain === null, notPlain: shell.notPlain },
        decision: decision && { rule: ruleJson(decision.rule), action: decision.action, message: decision.message },
        preToolUse: preToolUseOutput(decision),
        postToolUse: postToolUseOutput(decision),
        claudeReceives: receives,
      });
    }
    const out = (line: string): void => void writeOut(line + "\n");
    const what = `${tool}(${callDetail(call, 80)})`;
    if (!rules.file)
      return out(`no rules file in this repository (.nudge/rules.yaml): claude's own permissions decide ${what}`);
    if (!decision) out(`no rule matches ${what}: claude's own permissions decide, as without rules`);
    // What the rules saw of a command that is more than one simple command: why an allow rule did not match.
    if (shell && (shell.commands.length > 1 || shell.notPlain)) {
      out(
        `  the command is ${shell.commands.length} simple command${shell.commands.length === 1 ? "" : "s"}: ${shell.commands.map((c) => `[${showControls(c)}]`).join(" ")}`,
      );
      if (shell.notPlain && rules.rules.some((r) => r.action === "allow" && r.match.command !== undefined)) {
        out(`  it is not plain (${shell.notPlain}), so no allow rule on command can match it`);
      }
    }
    if (!decision) return;
    const r = decision.rule;
    out(`rule ${r.id} (${r.position} of ${rules.rules.length} in ${rules.file}) matches ${what}`);
    out(`  matches: ${describeMatch(r)}`);
    out(`  action:  ${decision.action}`);
    if (decision.action === "deny") out(`the call does not run; claude receives as its error result:\n  ${receives}`);
    if (decision.action === "note")
      out(`the call is asked or allowed as without the rule; after it runs, claude receives:\n  ${receives}`);
    if (decision.action === "ask")
      out(
        `you are asked, as a permission prompt, even where claude's mode would allow it${r.message ? `:\n  ${r.message}` : ""}`,
      );
    if (decision.action === "allow")
      out("the call runs without a permission prompt (a deny rule in claude's own settings still wins)");
  });

function parseInput(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UserError(
      `the tool input is not valid JSON: ${(error as Error).message}`,
      `quote it for the shell: ${EXAMPLE}`,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UserError(
      "the tool input must be a JSON object, like the input of claude's tool call",
      `for example: ${EXAMPLE}`,
    );
  }
  return value as Record<string, unknown>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A tool name or input that no rule could ever look at is almost surely a typo in the test. */
function inputWarnings(call: ToolCall): string[] {
  const warnings: string[] = [];
  const known = miscasedTool(call.toolName);
  if (known)
    warnings.push(`claude has no tool "${call.toolName}"; tool names are case-sensitive: did you mean ${known}?`);
  const field =
    call.toolName === "Bash"
      ? "command"
      : call.toolName === "NotebookEdit"
        ? "notebook_path"
        : (PATH_TOOLS as readonly string[]).includes(call.toolName)
          ? "file_path"
          : null;
  if (field && typeof call.input[field] !== "string")
    warnings.push(
      `the input has no "${field}" text, so no rule on ${field === "command" ? "command" : "path"} can match it`,
    );
  return warnings;
}
