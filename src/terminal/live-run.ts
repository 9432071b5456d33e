/**
 * `nudge claude run` on the terminal: opens the session to record into, starts recording with a
 * claude process of its own, runs the prompt loop, and on /rewind or /fork finishes one
 * recording and continues in the fork.
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { UserError } from "../errors.js";
import { totalCost } from "../bundle/session-summary.js";
import { loadSession, type Store } from "../bundle/store.js";
import { turnOf } from "../bundle/turn-lookup.js";
import type { ClaudeFlags } from "../claude/claude-process.js";
import { LiveSession } from "../recorder/live-session.js";
import { openSession, privateIndexFile, type OpenedSession, type SessionChoice } from "../recorder/open-session.js";
import { SessionRecorder } from "../recorder/session-recorder.js";
import { ownPathExcludes } from "../snapshot/own-paths.js";
import { continueRewound, forkSession } from "../time-travel/fork-session.js";
import { EventRenderer } from "./event-renderer.js";
import { formatCost } from "./format.js";
import { linePrompts, terminalPrompts } from "./prompt-input.js";
import { runLoop } from "./run-loop.js";
import { colorEnabled, makeStyle } from "./style.js";

export interface LiveRunInput {
  store: Store;
  cwd: string;
  bin: string;
  claudeConfigDir: string;
  choice: SessionChoice;
  flags: Omit<ClaudeFlags, "resume">;
  verbose: boolean;
  firstPrompt?: string;
}

export async function liveRun(input: LiveRunInput): Promise<void> {
  const { store, cwd } = input;
  const opened = await openSession(store, cwd, input.choice, {
    forkAt: async (id, turn) => {
      const fork = await continueRewound(store, await loadSession(store, id), turn);
      return { ...fork, isNew: false };
    },
  });
  const style = makeStyle(colorEnabled(process.stdout));
  const errStyle = makeStyle(colorEnabled(process.stderr));
  const say = (line: string) => process.stderr.write(`${line}\n`);

  /** Start recording into a bundle with a claude process of its own (again after /rewind, /fork). */
  const begin = async (session: OpenedSession): Promise<{ live: LiveSession; renderer: EventRenderer }> => {
    const runCwd = session.isNew ? cwd : session.manifest.repo.cwd;
    if (!existsSync(runCwd)) {
      throw new UserError(`the session's directory is gone: ${runCwd}`, "fork the session into a worktree: nudge session fork <id> --worktree <path>");
    }
    const renderer = new EventRenderer({
      style,
      write: (t) => process.stdout.write(t),
      // A line that is not JSON: the recorder's own warning says so, with its line number.
      notice: () => undefined,
      verbose: input.verbose,
      showPrompts: false,
      cwd: runCwd,
    });
    const recorder = await SessionRecorder.start(
      session.dir,
      session.manifest,
      privateIndexFile(store, session.manifest.id),
      { claudeConfigDir: input.claudeConfigDir, cwd: runCwd, exclude: ownPathExcludes(session.manifest.repo.root, store.ownDirs) },
      { event: (e) => renderer.render(e), warning: (w) => say(errStyle.yellow(`! ${w}`)) },
    ).catch(async (error: unknown) => {
      // A new session that could not even record its starting state leaves no empty folder behind.
      if (session.isNew) await rm(session.dir, { recursive: true, force: true });
      throw error;
    });
    const m = recorder.manifest;
    const what = session.isNew ? "recording" : "continuing";
    say(errStyle.dim(`● nudge ${what} session ${m.id}${m.parent ? ` (fork of ${m.parent.id} at turn ${m.parent.turn})` : ""} · ${session.dir}`));
    if (runCwd !== cwd) say(errStyle.dim(`  claude runs in ${runCwd}, where this session's code is`));
    const live = new LiveSession({
      bin: input.bin,
      flags: input.flags,
      cwd: runCwd,
      env: process.env,
      claudeConfigDir: input.claudeConfigDir,
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
    if (turn !== undefined) turnOf(current, turn); // a turn that is not there: say so, and keep recording as before
    await holder.live.end();
    try {
      const fork = await forkSession(store, await loadSession(store, current.id), turn);
      Object.assign(holder, await begin({ dir: fork.dir, manifest: fork.manifest, isNew: false }));
      const backup = fork.rewind ? ` · previous state saved as ${fork.rewind.backup.ref}` : "";
      return `${verb} to turn ${fork.turn}: code and conversation as they were then; turns after it stay in ${current.id}${backup}`;
    } catch (error) {
      const original = await loadSession(store, current.id);
      Object.assign(holder, await begin({ dir: original.dir, manifest: original.manifest, isNew: false }));
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
      firstPrompt: input.firstPrompt,
      slash: { rewind: (n) => branchAt(n, "rewound"), fork: (n) => branchAt(n, "forked") },
    });
  } finally {
    prompts.close();
    await holder.live.end();
  }
  const final = holder.live.recorder.manifest;
  say(errStyle.dim(`● session ${final.id}: ${final.turns.length - 1} turns, ${formatCost(totalCost(final.turns))} · continue with: nudge claude run -r ${final.id}`));
}
