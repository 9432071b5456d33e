import { commandStore } from "./command-store.js";
import { writeErr } from "../terminal/output.js";
import { Command } from "commander";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import * as z from "../base/zod.js";
import { locateClaude } from "../claude/locate-claude.js";
import { claudeConfigDir } from "../claude/transcript.js";
import { UserError } from "../base/errors.js";
import { DEFAULT_BUDGET } from "../loop/budget.js";
import { DEFAULT_GUARDS } from "../loop/guards.js";
import { loopExitCode, summaryLines } from "../loop/loop-report.js";
import { PLACEHOLDERS } from "../loop/prompt-template.js";
import { MODEL_NAME } from "../loop/model-plan.js";
import { readPromptFile, type PromptFile } from "../loop/prompt-file.js";
import { startLoop } from "../loop/start-loop.js";
import { openLoopSandboxes } from "../loop/loop-sandboxes.js";
import { loadRules } from "../rules/load-rules.js";
import { chooseSession, type SessionChoice } from "../live/open-session.js";
import { exitAsHangUp } from "../terminal/hang-up.js";
import { liveRun } from "../terminal/live-run.js";
import { colorEnabled, makeStyle } from "../terminal/style.js";
import { argsAfterDoubleDash, RunOptions } from "./claude-run.js";
import { parseOptions } from "./parse-options.js";

const none = z.pipe(
  z.literal("none"),
  z.transform(() => null),
);
const off = z.pipe(
  z.union([z.literal("off"), z.literal("0")]),
  z.transform(() => null),
);
const guardCount = z.union([off, z.coerce.number().check(z.int(), z.positive())]);

/** A promise's text goes inside <promise>…</promise>: plain words, no angle brackets. */
// Trimmed as claude's <promise> is read (QA: "DONE " could never match); blank is refused.
const promiseText = z.pipe(
  z.pipe(
    z.string(),
    z.transform((text) => text.trim()),
  ),
  z.string().check(z.regex(/^[^<>\n]{1,100}$/, "plain text of at most 100 characters, without < > or a line break")),
);
const modelList = z
  .pipe(
    z.string(),
    z.transform((list) => list.split(",").map((m) => m.trim())),
  )
  .check(
    z.refine(
      (models: string[]) => models.length > 0 && models.every((m) => MODEL_NAME.test(m)),
      "a comma-separated list of model names, e.g. haiku,sonnet,opus",
    ),
  );

/** --sandbox-net's host:port (an IPv6 address in brackets). */
const hostPort = z
  .pipe(
    z
      .string()
      .check(z.regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "host:port, e.g. registry.npmjs.org:443")),
    z.transform((v) => {
      const at = v.lastIndexOf(":");
      return { host: v.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(v.slice(at + 1)) };
    }),
  )
  .check(z.refine((t: { port: number }) => t.port >= 1 && t.port <= 65535, "a port from 1 to 65535"));

const LoopOptions = z.object({
  until: z.optional(z.string().check(z.minLength(1))),
  untilPromise: z.optional(promiseText),
  failPromise: z._default(promiseText, "FAILURE"),
  fresh: z._default(z.boolean(), false),
  verify: z.optional(z.union([z.literal(true), z.string().check(z.minLength(1))])),
  modelStrategy: z.optional(modelList),
  escalateAfter: z._default(z.coerce.number().check(z.int(), z.positive()), 2),
  allowModelHints: z._default(z.boolean(), false),
  sandbox: z._default(z.boolean(), false),
  sandboxNet: z._default(z.array(hostPort), []),
  sandboxRead: z._default(z.array(z.string().check(z.minLength(1))), []),
  maxIterations: z._default(z.coerce.number().check(z.int(), z.positive()), DEFAULT_BUDGET.iterations),
  maxCost: z._default(z.union([none, z.coerce.number().check(z.positive())]), DEFAULT_BUDGET.costUsd),
  maxMinutes: z._default(z.union([none, z.coerce.number().check(z.positive())]), DEFAULT_BUDGET.minutes),
  checkTimeout: z._default(z.coerce.number().check(z.positive()), 600),
  promptFile: z.optional(z.string().check(z.minLength(1))),
  guards: z._default(z.boolean(), true),
  guardNoChange: z._default(guardCount, DEFAULT_GUARDS.noChange),
  guardRepeat: z._default(guardCount, DEFAULT_GUARDS.repeat),
  guardSameOutput: z._default(guardCount, DEFAULT_GUARDS.sameOutput),
  // The options a loop shares with `claude run`.
  ...RunOptions.shape,
});

const placeholders = Object.entries(PLACEHOLDERS)
  .map(([name, what]) => `  {{${name}}}${" ".repeat(Math.max(1, 17 - name.length))}${what}`)
  .join("\n");

export const claudeLoopCommand = new Command("loop")
  .description(
    "run claude in a loop until a check passes (or claude keeps its promise); every iteration is a recorded turn you can rewind to",
  )
  .argument("[goal]", "what claude should achieve: the first prompt, and the heart of every later one")
  .option(
    "--until <command>",
    "the check: a shell command run in the work tree after every turn; the loop ends when it exits 0",
  )
  .option(
    "--until-promise <text>",
    "done when claude's last message of an iteration says <promise>TEXT</promise> (with --until: and the check passes)",
  )
  .option(
    "--fail-promise <text>",
    'claude gives up with <promise>TEXT</promise>: the loop stops, exit 3 (default "FAILURE")',
  )
  .option("--fresh", "every iteration a new claude conversation, started from the prompt; the files carry the state")
  .option(
    "--verify [prompt-file]",
    "when the loop would end, a fresh claude with read-only tools checks the work: <verify-pass/> or <verify-fail>why</verify-fail>",
  )
  .option(
    "--model-strategy <models>",
    "models to climb through, e.g. haiku,sonnet,opus: one up after --escalate-after failed iterations, one down after a pass",
  )
  .option("--escalate-after <k>", "failed iterations in a row before --model-strategy moves up (default 2)")
  .option(
    "--allow-model-hints",
    "let <next-model>NAME</next-model> in claude's last message choose the next iteration's model",
  )
  .option(
    "--sandbox",
    "run claude under bubblewrap (bwrap): it sees the work tree (writable, .git read-only), the system's programs and a private home; no network but the API",
  )
  .option(
    "--sandbox-net <host:port>",
    "with --sandbox: also reachable through the sandbox's HTTPS_PROXY (repeat for more)",
    (v: string, all: string[]) => [...all, v],
    [] as string[],
  )
  .option(
    "--sandbox-read <path>",
    "with --sandbox: also show this folder, read-only (a toolchain outside /usr; repeat for more)",
    (v: string, all: string[]) => [...all, v],
    [] as string[],
  )
  .option(
    "--max-iterations <n>",
    `stop after n iterations (default ${DEFAULT_BUDGET.iterations}; a verifier's turns do not count)`,
  )
  .option(
    "--max-cost <usd>",
    `stop once the loop's turns cost this much, or "none" (default ${DEFAULT_BUDGET.costUsd})`,
  )
  .option(
    "--max-minutes <m>",
    `stop after m minutes, interrupting a turn, or "none" (default ${DEFAULT_BUDGET.minutes})`,
  )
  .option("--check-timeout <seconds>", "stop a check that runs longer; it counts as failed (default 600)")
  .option("--prompt-file <file>", "a template for every iteration's prompt (placeholders below)")
  .option(
    "--guard-no-change <k>",
    `pause after k iterations in a row that changed no file, or "off" (default ${DEFAULT_GUARDS.noChange})`,
  )
  .option(
    "--guard-repeat <k>",
    `pause when the same tool call (name and input) comes k times with no edit in between, or "off" (default ${DEFAULT_GUARDS.repeat})`,
  )
  .option(
    "--guard-same-output <k>",
    `pause when the check prints the same as before k times in a row, or "off" (default ${DEFAULT_GUARDS.sameOutput})`,
  )
  .option("--no-guards", "turn the three guards off (the budgets stay)")
  .option("-c, --continue", "loop on in the latest session of this work tree")
  .option("-r, --resume <id>", "loop on in a session, by id or unique prefix")
  .option(
    "-v, --verbose",
    "show tool inputs and outputs, thinking, subagents' own words, and the end of a failing check's output",
  )
  .option("--max-turns <n>", "passed to claude: agentic turns per prompt")
  .option("--model <name>", "passed to claude: the model")
  .option("--cwd <dir>", "run (and check) in this directory instead of the current one")
  .option("--permission-mode <mode>", "passed to claude: default, acceptEdits, plan, bypassPermissions")
  .option("--allowed-tools <tools>", "passed to claude as --allowedTools")
  .option("--disallowed-tools <tools>", "passed to claude as --disallowedTools")
  .option("--force", "record even though another nudge is recording in this work tree")
  .option("--claude-bin <path>", "the claude executable (default: $NUDGE_CLAUDE_BIN, then PATH)")
  .addHelpText(
    "after",
    `
Everything after -- goes to claude verbatim.

Each iteration is one turn of one session. The check runs once before the first turn, then after
every turn; its exit status and the end of its output are kept on the turn (nudge session show).
The first prompt is the goal; each later one is the goal, the check's exit status and the last
60 lines of its output. With --prompt-file, that template makes every prompt, the first included:
${placeholders}

The prompt file is read again before every iteration: editing it steers the loop. {{feedback}}
(a promise the check refuted, the verifier's reason) is added at the end when not used.

With --until-promise the loop is done when claude's last message says <promise>TEXT</promise>
(in its prose: a tag in a code block or a quoted line does not count), and, with --until, the
check passes too. <promise>FAILURE</promise> (--fail-promise) stops it with exit 3. --verify runs
a fresh claude with read-only tools (Bash Read Glob Grep) before it ends; its
<verify-fail>why</verify-fail> goes to the next iteration. Each iteration's raw NDJSON is kept
in the session's folder, under iterations/.

The loop stops when the check passes, when a budget is spent, or when a guard trips. A guard
pauses it: on a terminal you choose to continue, stop, or rewind to the best turn so far;
otherwise it stops. A line you type during the loop is sent as the next prompt, and the loop
goes on. Ctrl-C stops the loop after the current turn; a second Ctrl-C interrupts the turn.

Exit codes:
  0  done: the check passed (and the promise was kept, and the verifier agreed, when asked for)
  3  the loop stopped before: a guard, a budget, you, or claude's <promise>FAILURE</promise> (the
     summary says which, and names the turn to go back to: nudge session rewind <id> <turn>)
  1  a problem with the input or the environment (a bad flag, a check that cannot run)
  2  a bug in nudge

Examples:
  $ nudge claude loop "make the failing tests pass" --until "npm test" --permission-mode acceptEdits
  $ nudge claude loop "port utils.js to TypeScript" --until "npx tsc --noEmit" --max-iterations 5 --max-cost 2
  $ nudge claude loop --prompt-file PROMPT.md --until "pytest -q" --guard-no-change 2
  $ nudge claude loop -c "keep going" --until "npm test"      # more iterations in the same session
  $ nudge claude loop --prompt-file PROMPT.md --fresh --until-promise COMPLETE --until "npm test" --verify
  $ nudge claude loop "fix the build" --until "make" --model-strategy haiku,sonnet,opus --sandbox`,
  )
  .allowExcessArguments(true)
  .action(async (goal: string | undefined, raw: unknown, command: Command) => {
    const given = raw as { until?: unknown; untilPromise?: unknown };
    if (given.until === undefined && given.untilPromise === undefined) {
      throw new UserError(
        "a loop needs a check: --until <command>, or --until-promise <text>",
        'it ends when the check exits 0, e.g. --until "npm test" (or when claude says <promise>COMPLETE</promise>: --until-promise COMPLETE); for a fixed number of iterations: --until false --max-iterations 5',
      );
    }
    const options = parseOptions(LoopOptions, raw);
    if (options.model && options.modelStrategy)
      throw new UserError(
        "--model and --model-strategy cannot be used together",
        "the strategy's first model is where the loop starts",
      );
    if (options.untilPromise !== undefined && options.untilPromise === options.failPromise) {
      throw new UserError(
        `--until-promise and --fail-promise are both "${options.failPromise}"`,
        "give the failure another word, e.g. --fail-promise FAILURE",
      );
    }
    if (!options.sandbox && (options.sandboxNet.length > 0 || options.sandboxRead.length > 0)) {
      throw new UserError(
        `${options.sandboxNet.length > 0 ? "--sandbox-net" : "--sandbox-read"} needs --sandbox`,
        "add --sandbox, or leave it out",
      );
    }
    if (options.continue && options.resume) throw new UserError("-c and -r cannot be used together", "pick one");
    // It would do nothing without a strategy to climb (QA: accepted silently).
    if ((raw as { escalateAfter?: unknown }).escalateAfter !== undefined && !options.modelStrategy) {
      throw new UserError(
        "--escalate-after needs --model-strategy",
        "name the models to climb through, e.g. --model-strategy haiku,sonnet,opus",
      );
    }
    const passthrough = argsAfterDoubleDash(command);
    // claude's own --model after -- would silently beat the strategy (QA): refused as --model is.
    if (options.modelStrategy && passthrough.some((a) => a === "--model" || a.startsWith("--model="))) {
      throw new UserError(
        "--model after -- and --model-strategy cannot be used together",
        "the strategy's first model is where the loop starts",
      );
    }
    const ours = command.args.slice(0, command.args.length - passthrough.length);
    if (ours.length > 1) {
      throw new UserError(
        `too many arguments: ${ours.slice(1).join(" ")}`,
        'quote the goal ("make the tests pass"); flags for claude go after --',
      );
    }
    process.exitCode = await runLoop({ ...options, goal: ours[0] ?? null, passthrough });
  });

type LoopInput = z.infer<typeof LoopOptions> & { goal: string | null; passthrough: string[] };

async function runLoop(input: LoopInput): Promise<number> {
  const cwd = path.resolve(input.cwd ?? process.cwd());
  if (!existsSync(cwd)) throw new UserError(`no such directory: ${cwd}`, "check --cwd");
  if (!statSync(cwd).isDirectory())
    throw new UserError(`not a directory: ${cwd}`, "--cwd takes the folder claude works in");
  const promptFile = input.promptFile ? await readPromptFile(input.promptFile) : null;
  const verify = input.verify === undefined ? null : input.verify === true ? true : await readVerifyFile(input.verify);
  // Set but empty, claude keeps its config in its working folder: a sandbox's private copy of it would be the work tree.
  if (process.env.CLAUDE_CONFIG_DIR === "" && (input.sandbox || verify !== null)) {
    throw new UserError(
      "CLAUDE_CONFIG_DIR is set but empty, so claude would keep its config in the work tree, which a sandbox cannot copy",
      "unset CLAUDE_CONFIG_DIR, or set it to a folder",
    );
  }
  const store = await commandStore(cwd);
  const bin = await locateClaude(input.claudeBin);
  const rules = await loadRules(store.repoRoot);
  const choice: SessionChoice = input.resume
    ? { kind: "resume", id: input.resume }
    : input.continue
      ? { kind: "continue" }
      : { kind: "new" };
  const existing = await chooseSession(store, choice);
  const errStyle = makeStyle(colorEnabled(process.stderr));
  const say = (line: string) => writeErr(`${errStyle.dim(line)}\n`);
  const where = {
    workTree: existing?.manifest.repo.root ?? store.repoRoot,
    cwd: existing?.manifest.repo.cwd ?? cwd,
    claudeConfigDir: claudeConfigDir(process.env, cwd),
    env: process.env,
    allowNet: input.sandboxNet,
    allowRead: input.sandboxRead,
  };
  const { sandbox, verifierSandbox, close } = await openLoopSandboxes(where, {
    sandbox: input.sandbox,
    verifier: verify !== null,
  });
  try {
    if (verify !== null && !verifierSandbox)
      say(
        "⚠ --verify: bubblewrap (bwrap) cannot make a sandbox here, so nothing stops the verifier's Bash commands from writing (it is told not to); install bubblewrap to confine it",
      );
    const loop = await startLoop({
      goal: input.goal,
      check: input.until ?? null,
      fresh: input.fresh,
      promise: input.untilPromise ?? null,
      failPromise: input.failPromise,
      verify,
      models: {
        strategy: input.modelStrategy ?? null,
        escalateAfter: input.escalateAfter,
        allowHints: input.allowModelHints,
      },
      checkTimeoutMs: input.checkTimeout * 1000,
      promptFile,
      budget: { iterations: input.maxIterations, costUsd: input.maxCost, minutes: input.maxMinutes },
      guards: input.guards
        ? { noChange: input.guardNoChange, repeat: input.guardRepeat, sameOutput: input.guardSameOutput }
        : { noChange: null, repeat: null, sameOutput: null },
      cwd: existing?.manifest.repo.cwd ?? cwd,
      newSession: existing === null,
      verbose: input.verbose ?? false,
      say,
      sandbox,
      verifierSandbox,
    });
    if (!loop) {
      say("■ loop stopped by you (Ctrl-C) before the first turn; nothing was sent to claude");
      return 3;
    }
    try {
      const run = await liveRun({
        store,
        cwd,
        bin,
        claudeConfigDir: claudeConfigDir(process.env, cwd),
        choice,
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
        rules,
        loop,
        sandbox,
      });
      const outcome = loop.outcome();
      const [first, ...rest] = summaryLines(outcome);
      writeErr(`${outcome.reason.kind === "passed" ? errStyle.green(first!) : errStyle.yellow(first!)}\n`);
      for (const line of rest) writeErr(`${line}\n`);
      // The terminal went away: the bundle is complete and the lock released; end as a hang-up does (129).
      if (run.hungUp) exitAsHangUp();
      return loopExitCode(outcome);
    } finally {
      loop.dispose();
    }
  } finally {
    await close();
  }
}

/** --verify's file; a goal put right after --verify is taken for it, so say so. */
async function readVerifyFile(file: string): Promise<PromptFile> {
  if (!existsSync(file)) {
    throw new UserError(
      `--verify: no such file: ${file}`,
      "a word right after --verify is its prompt file: put the goal before --verify, or write --verify=FILE",
    );
  }
  return readPromptFile(file, "--verify");
}
