import { Command } from "commander";
import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { UserError } from "../errors.js";
import { bundleDir, loadSession, openStore } from "../bundle/store.js";
import { locateClaude } from "../claude/locate-claude.js";
import { claudeConfigDir } from "../claude/transcript.js";
import { LiveSession } from "../recorder/live-session.js";
import { openSession, privateIndexFile, type OpenedSession, type SessionChoice } from "../recorder/open-session.js";
import { SessionRecorder } from "../recorder/session-recorder.js";
import { EventRenderer } from "../terminal/event-renderer.js";
import { formatCost } from "../terminal/format.js";
import { linePrompts, terminalPrompts } from "../terminal/prompt-input.js";
import { runLoop } from "../terminal/run-loop.js";
import { colorEnabled, makeStyle } from "../terminal/style.js";
import { parseOptions } from "./parse-options.js";
import { continueRewound, forkSession } from "../time-travel/fork-session.js";

const RunOptions = z.object({
  continue: z.boolean().optional(),
  resume: z.string().min(1).optional(),
  verbose: z.boolean().optional(),
  maxTurns: z.coerce.number().int().positive().optional(),
  model: z.string().min(1).optional(),
  cwd: z.string().min(1).optional(),
  permissionMode: z.string().min(1).optional(),
  allowedTools: z.string().min(1).optional(),
  claudeBin: z.string().min(1).optional(),
});

export const claudeRunCommand = new Command("run")
  .description("run claude as usual while nudge records the conversation and the code after every turn")
  .argument("[prompt]", "the first prompt (more come from the prompt line, or one per stdin line)")
  .option("-c, --continue", "continue the latest session of this repository")
  .option("-r, --resume <id>", "continue a session by id or unique prefix")
  .option("-v, --verbose", "show tool inputs and outputs")
  .option("--max-turns <n>", "passed to claude: agentic turns per prompt")
  .option("--model <name>", "passed to claude: the model")
  .option("--cwd <dir>", "run in this directory instead of the current one")
  .option("--permission-mode <mode>", "passed to claude: default, acceptEdits, plan, bypassPermissions")
  .option("--allowed-tools <tools>", "passed to claude as --allowedTools")
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

At the prompt: /session, /rewind <n>, /fork [n], /help, /exit.`,
  )
  .action(async (prompt: string | undefined, raw: unknown, command: Command) => {
    const options = parseOptions(RunOptions, raw);
    if (options.continue && options.resume) throw new UserError("-c and -r cannot be used together", "pick one");
    const passthrough = argsAfterDoubleDash(command);
    if (prompt !== undefined && passthrough[0] === prompt) prompt = undefined; // `run -- --flag`
    await runClaude({ ...options, prompt, passthrough });
  });

function argsAfterDoubleDash(command: Command): string[] {
  let root = command;
  while (root.parent) root = root.parent;
  // commander keeps the untouched argv as rawArgs (untyped); operands after -- are not marked otherwise.
  const raw = (root as unknown as { rawArgs: string[] }).rawArgs;
  const at = raw.indexOf("--");
  return at === -1 ? [] : raw.slice(at + 1);
}

type RunInput = z.infer<typeof RunOptions> & { prompt?: string; passthrough: string[] };

async function runClaude(input: RunInput): Promise<void> {
  const cwd = path.resolve(input.cwd ?? process.cwd());
  if (!existsSync(cwd)) throw new UserError(`no such directory: ${cwd}`, "check --cwd");
  const store = await openStore(cwd);
  const bin = await locateClaude(input.claudeBin);
  const choice: SessionChoice = input.resume
    ? { kind: "resume", id: input.resume }
    : input.continue
      ? { kind: "continue" }
      : { kind: "new" };
  const opened = await openSession(store, cwd, choice, {
    forkAt: async (id, turn) => {
      const fork = await continueRewound(store, await loadSession(store, id), turn);
      return { ...fork, isNew: false };
    },
  });
  const configDir = claudeConfigDir();
  const style = makeStyle(colorEnabled(process.stdout));
  const errStyle = makeStyle(colorEnabled(process.stderr));
  const say = (line: string) => process.stderr.write(`${line}\n`);

  /** Start recording into a bundle with a claude process of its own (again after /rewind, /fork). */
  const begin = async (session: OpenedSession): Promise<{ live: LiveSession; renderer: EventRenderer }> => {
    const runCwd = session.isNew ? cwd : session.manifest.repo.cwd;
    if (!existsSync(runCwd)) {
      throw new UserError(`the session's directory is gone: ${runCwd}`, "fork the session into a worktree: nudge session fork <id> --worktree <path>");
    }
    const renderer = new EventRenderer({ style, write: (t) => process.stdout.write(t), verbose: input.verbose ?? false, showPrompts: false, cwd: runCwd });
    const recorder = await SessionRecorder.start(
      session.dir,
      session.manifest,
      privateIndexFile(store, session.manifest.id),
      { claudeConfigDir: configDir, cwd: runCwd },
      { event: (e) => renderer.render(e), warning: (w) => say(errStyle.yellow(`! ${w}`)) },
    );
    const m = recorder.manifest;
    const what = session.isNew ? "recording" : "continuing";
    say(errStyle.dim(`● nudge ${what} session ${m.id}${m.parent ? ` (fork of ${m.parent.id} at turn ${m.parent.turn})` : ""} · ${session.dir}`));
    const live = new LiveSession({
      bin,
      flags: {
        model: input.model,
        maxTurns: input.maxTurns,
        permissionMode: input.permissionMode,
        allowedTools: input.allowedTools,
        passthrough: input.passthrough,
      },
      cwd: runCwd,
      env: process.env,
      claudeConfigDir: configDir,
      recorder,
      onUnexpectedExit: (exit, stderr) => {
        const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.exitCode}`;
        say(errStyle.red(`✗ claude exited (${how})${stderr ? `: ${stderr.split("\n").at(-1)}` : ""}`));
        say(errStyle.dim("  everything so far is recorded; the next prompt resumes the conversation in a new claude process"));
      },
    });
    return { live, renderer };
  };

  const holder = await begin(opened);
  /** /rewind and /fork: finish this recording, branch at turn n (code in place), record on in the fork. */
  const branchAt = async (turn: number | undefined, verb: "rewound" | "forked"): Promise<string> => {
    const current = holder.live.recorder.manifest;
    await holder.live.end();
    try {
      const fork = await forkSession(store, await loadSession(store, current.id), turn);
      Object.assign(holder, await begin({ dir: fork.dir, manifest: fork.manifest, isNew: false }));
      const backup = fork.rewind ? ` · previous state saved as ${fork.rewind.backup.ref}` : "";
      return `${verb} to turn ${fork.turn}: code and conversation as they were then; turns after it stay in ${current.id}${backup}`;
    } catch (error) {
      Object.assign(holder, await begin({ dir: bundleDir(store, current.id), manifest: (await loadSession(store, current.id)).manifest, isNew: false }));
      throw error;
    }
  };
  const prompts = process.stdin.isTTY ? terminalPrompts(process.stdin, process.stdout, style.bold("› ")) : linePrompts(process.stdin);
  try {
    await runLoop({
      session: holder,
      prompts,
      style: errStyle,
      say,
      firstPrompt: input.prompt,
      slash: { rewind: (n) => branchAt(n, "rewound"), fork: (n) => branchAt(n, "forked") },
    });
  } finally {
    prompts.close();
    await holder.live.end();
  }
  const final = holder.live.recorder.manifest;
  const cost = final.turns.reduce((sum, t) => sum + (t.result?.costUsd ?? 0), 0);
  say(errStyle.dim(`● session ${final.id}: ${final.turns.length - 1} turns, ${formatCost(cost)} · continue with: nudge claude run -r ${final.id}`));
}
