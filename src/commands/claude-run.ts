import { commandStore } from "./command-store.js";
import { Command } from "commander";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import * as z from "../base/zod.js";
import { UserError } from "../base/errors.js";
import { locateClaude } from "../claude/locate-claude.js";
import { claudeConfigDir } from "../claude/transcript.js";
import { loadRules } from "../rules/load-rules.js";
import { exitAsHangUp } from "../terminal/hang-up.js";
import { liveRun } from "../terminal/live-run.js";
import { writeErr } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";

export const RunOptions = z.object({
  continue: z.optional(z.boolean()),
  resume: z.optional(z.string().check(z.minLength(1))),
  verbose: z.optional(z.boolean()),
  maxTurns: z.optional(z.coerce.number().check(z.int(), z.positive())),
  model: z.optional(z.string().check(z.minLength(1))),
  cwd: z.optional(z.string().check(z.minLength(1))),
  permissionMode: z.optional(z.string().check(z.minLength(1))),
  allowedTools: z.optional(z.string().check(z.minLength(1))),
  disallowedTools: z.optional(z.string().check(z.minLength(1))),
  claudeBin: z.optional(z.string().check(z.minLength(1))),
  force: z.optional(z.boolean()),
  tui: z.optional(z.boolean()),
});

export const claudeRunCommand = new Command("run")
  .description("run claude as usual while nudge records the conversation and the code after every turn")
  .argument("[prompt]", "the first prompt (more come from the prompt line, or one per stdin line)")
  .option("-c, --continue", "continue the latest session of this work tree")
  .option("-r, --resume <id>", "continue a session by id or unique prefix")
  .option("--tui", "claude's own terminal UI, recorded through its hooks (within a subscription's plan)")
  .option("-v, --verbose", "show tool inputs and outputs, thinking, and subagents' own words")
  .option("--max-turns <n>", "passed to claude: agentic turns per prompt")
  .option("--model <name>", "passed to claude: the model")
  .option("--cwd <dir>", "run in this directory instead of the current one")
  .option("--permission-mode <mode>", "passed to claude: default, acceptEdits, plan, bypassPermissions")
  .option("--allowed-tools <tools>", "passed to claude as --allowedTools")
  .option("--disallowed-tools <tools>", "passed to claude as --disallowedTools")
  .option("--force", "record even though another nudge is recording in this work tree")
  .option("--claude-bin <path>", "the claude executable (default: $NUDGE_CLAUDE_BIN, then PATH)")
  .addHelpText(
    "after",
    `
Everything after -- goes to claude verbatim.

Examples:
  $ nudge claude run "fix the flaky test"
  $ nudge claude run -c
  $ printf 'add a test\\nrun it\\n' | nudge claude run --permission-mode acceptEdits
  $ nudge claude run "refactor" -- --add-dir ../shared
  $ nudge claude run --tui             # claude's own UI; every turn recorded as above

At the prompt: /session, /rewind <n>, /fork [n], /undo, /compact [focus], /help, /exit (/help there says more).`,
  )
  // Operands after -- are claude's; commander counts them as ours, so the check is done below.
  .allowExcessArguments(true)
  .action(async (prompt: string | undefined, raw: unknown, command: Command) => {
    const options = parseOptions(RunOptions, raw);
    if (options.continue && options.resume) throw new UserError("-c and -r cannot be used together", "pick one");
    const passthrough = argsAfterDoubleDash(command);
    const ours = command.args.slice(0, command.args.length - passthrough.length);
    if (ours.length > 1) {
      throw new UserError(
        `too many arguments: ${ours.slice(1).join(" ")}`,
        'quote the prompt ("fix the flaky test"); flags for claude go after --',
      );
    }
    if (options.tui) await runTui({ ...options, prompt: ours[0], passthrough });
    else await runClaude({ ...options, prompt: ours[0], passthrough });
  });

export function argsAfterDoubleDash(command: Command): string[] {
  let root = command;
  while (root.parent) root = root.parent;
  // commander keeps the untouched argv as rawArgs (untyped); operands after -- are not marked otherwise.
  const raw = (root as unknown as { rawArgs: string[] }).rawArgs;
  const at = raw.indexOf("--");
  return at === -1 ? [] : raw.slice(at + 1);
}

type RunInput = z.infer<typeof RunOptions> & { prompt?: string; passthrough: string[] };

function workingDir(input: RunInput): string {
  const cwd = path.resolve(input.cwd ?? process.cwd());
  if (!existsSync(cwd)) throw new UserError(`no such directory: ${cwd}`, "check --cwd");
  if (!statSync(cwd).isDirectory())
    throw new UserError(`not a directory: ${cwd}`, "--cwd takes the folder claude works in");
  return cwd;
}

/** claude's own UI in this terminal; nudge ends with claude's exit status. */
async function runTui(input: RunInput): Promise<void> {
  if (input.verbose || input.maxTurns !== undefined)
    throw new UserError(
      "--verbose and --max-turns are for nudge's own frontend",
      "leave them out with --tui (claude's UI shows tool details itself)",
    );
  if (!process.stdin.isTTY || !process.stdout.isTTY)
    throw new UserError(
      "--tui needs a terminal: claude's own UI runs in it",
      "without a terminal, leave out --tui (prompts are then read one per stdin line)",
    );
  const cwd = workingDir(input);
  const store = await commandStore(cwd);
  const bin = await locateClaude(input.claudeBin);
  const rules = await loadRules(store.repoRoot);
  const { runTuiSession } = await import("../live/tui-session.js");
  const { rulesGuard } = await import("../live/rules-guard.js");
  const outcome = await runTuiSession({
    store,
    cwd,
    bin,
    claudeConfigDir: claudeConfigDir(process.env, cwd),
    env: process.env,
    choice: input.resume
      ? { kind: "resume", id: input.resume }
      : input.continue
        ? { kind: "continue" }
        : { kind: "new" },
    flags: {
      model: input.model,
      permissionMode: input.permissionMode,
      allowedTools: input.allowedTools,
      disallowedTools: input.disallowedTools,
      passthrough: input.passthrough,
    },
    firstPrompt: input.prompt,
    force: input.force ?? false,
    // Decisions are recorded as hook answers; claude's UI shows their reasons itself.
    guard: rulesGuard(rules, store.repoRoot, () => undefined),
    say: (line) => writeErr(`${line}\n`),
    warn: (line) => writeErr(`warning: ${line}\n`),
  });
  process.exitCode = outcome.exitCode;
}

async function runClaude(input: RunInput): Promise<void> {
  const cwd = workingDir(input);
  const store = await commandStore(cwd);
  const bin = await locateClaude(input.claudeBin);
  // A broken rules file is one clear error now, never a surprise in the middle of a turn.
  const rules = await loadRules(store.repoRoot);
  const outcome = await liveRun({
    store,
    cwd,
    bin,
    claudeConfigDir: claudeConfigDir(process.env, cwd),
    choice: input.resume
      ? { kind: "resume", id: input.resume }
      : input.continue
        ? { kind: "continue" }
        : { kind: "new" },
    flags: {
      model: input.model,
      maxTurns: input.maxTurns,
      permissionMode: input.permissionMode,
      allowedTools: input.allowedTools,
      disallowedTools: input.disallowedTools,
      passthrough: input.passthrough,
    },
    verbose: input.verbose ?? false,
    force: input.force ?? false,
    firstPrompt: input.prompt,
    rules,
  });
  // The terminal went away: the bundle is complete and the lock released; end as a hang-up does (129).
  if (outcome.hungUp) exitAsHangUp();
  // Unattended (a script, CI): a turn that ended in an error, or a prompt never sent, must not read as success to the caller.
  const failed = [
    ...(outcome.errorTurns.length > 0
      ? [
          `${outcome.errorTurns.length === 1 ? `turn ${outcome.errorTurns[0]}` : `turns ${outcome.errorTurns.join(", ")}`} ended in an error`,
        ]
      : []),
    ...(outcome.refusedPrompts > 0
      ? [`${outcome.refusedPrompts === 1 ? "a prompt was" : `${outcome.refusedPrompts} prompts were`} not sent`]
      : []),
  ];
  if (failed.length > 0) {
    throw new UserError(
      `${failed.join("; ")} (shown above)`,
      outcome.discarded
        ? "once the cause is fixed, run it again"
        : `once the cause is fixed, continue with: nudge claude run -r ${outcome.id}`,
    );
  }
}
