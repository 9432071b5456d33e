/**
 * What the hooks `nudge hooks install --claude` writes run: one hook's JSON on stdin, an answer on
 * stdout when there is one. It never breaks claude: whatever fails is one line on stderr (which
 * claude shows in its debug output) and exit 0, never 2 (which would block claude); it ends itself
 * before claude's own timeout for the hook.
 */
import { spawn } from "node:child_process";
import { Command } from "commander";
import { openStore } from "../store/store.js";
import { claudeConfigDir } from "../claude/transcript.js";
import { errorMessage } from "../base/errors.js";
import { HookInput } from "../live/hook-input.js";
import { writeErr, writeOut } from "../terminal/output.js";
import * as z from "../base/zod.js";
import { parseOptions } from "./parse-options.js";

/** Seconds nudge gives itself per hook, under the `timeout` its entry gives claude (claude-settings-hooks.ts). */
export const HOOK_LIMIT_S: Record<string, number> = {
  SessionStart: 25,
  UserPromptSubmit: 25,
  PreToolUse: 55,
  Stop: 8,
  StopFailure: 8,
  SessionEnd: 8,
};
const FINISH_LIMIT_S = 60;
/** A hook's input is bounded: a Write's content can be a whole file. */
const MAX_INPUT = 32 * 1024 * 1024;

const Input = z.looseObject({
  ...HookInput.shape,
  cwd: z.string().check(z.minLength(1)),
  tool_use_id: z.optional(z.string()),
});
const Options = z.object({
  finish: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,100}$/))),
  end: z.optional(z.boolean()),
  claudePid: z.optional(z.string().check(z.regex(/^\d{1,9}$/))),
});

export const hooksClaudeEventCommand = new Command("claude-event")
  .description("what the hooks of `nudge hooks install --claude` run (claude gives the hook's JSON on stdin)")
  .option("--finish <session>", "end the turn a Stop hook noted (run detached by that hook)")
  .option("--end", "with --finish: claude ended; close the session")
  .option("--claude-pid <pid>", "with --finish: the claude whose hook started it")
  .addHelpText(
    "after",
    '\nNot meant to be run by hand.\n\nExamples:\n  $ echo \'{"hook_event_name":"Stop","session_id":"…","cwd":"/repo"}\' | nudge hooks claude-event',
  )
  .action(async (raw: unknown) => {
    const o = parseOptions(Options, raw);
    // However long git or the disk takes, claude gets its answer (no answer: the hook is as if absent).
    // Until the event is known, the longest any hook gets; then its own (hook()).
    setTimeout(
      () => process.exit(0),
      (o.finish ? FINISH_LIMIT_S : Math.max(...Object.values(HOOK_LIMIT_S))) * 1000,
    ).unref();
    try {
      // A claude nudge runs (`claude run --tui`: TUI_RECORDING_ENV in hook-gate.ts; nudge's own
      // frontend and loops: claude-process.ts's mark) is recorded by that nudge. Read before anything loads.
      if (process.env.NUDGE_TUI_SESSION || process.env.NUDGE_CLAUDE_RUN) return;
      if (o.finish) return await finish(o.finish, o.end ?? false, Number(o.claudePid ?? 0));
      const out = await hook();
      if (out) writeOut(`${JSON.stringify(out)}\n`);
    } catch (error) {
      writeErr(`nudge: not recorded: ${errorMessage(error)}\n`);
    } finally {
      process.exitCode = 0;
    }
  });

async function hook(): Promise<object | null> {
  const text = await readStdin();
  const parsed = Input.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error("the hook's input is not what claude sends");
  const hook = parsed.data;
  const limit = HOOK_LIMIT_S[hook.hook_event_name];
  if (limit) setTimeout(() => process.exit(0), limit * 1000).unref();
  let store;
  try {
    store = await openStore(hook.cwd);
  } catch (error) {
    // Not a git repository (or no store possible): claude goes on unrecorded, said once per session.
    return hook.hook_event_name === "SessionStart"
      ? { systemMessage: `nudge is not recording this session: ${errorMessage(error)}` }
      : null;
  }
  // Before every tool of claude's: only what the gate and the rules need is loaded.
  if (hook.hook_event_name === "PreToolUse") return (await import("../live/hook-gate.js")).preToolUse(store, hook);
  const claudePid = /^\d{1,9}$/.test(process.env.CLAUDE_PID ?? "") ? Number(process.env.CLAUDE_PID) : process.ppid;
  const finish = (sessionId: string, end: boolean) => {
    const args = [process.argv[1]!, "hooks", "claude-event", "--finish", sessionId, "--claude-pid", String(claudePid)];
    if (end) args.push("--end");
    spawn(process.execPath, args, { cwd: hook.cwd, detached: true, stdio: "ignore", env: process.env }).unref();
  };
  try {
    // A prompt, a turn's end, claude's end: noted, and done by a detached process (the recorder is not loaded here).
    const noted = await (await import("../live/hook-notes.js")).noteHook(store, hook);
    if (noted === "nothing") return null;
    if (noted !== "whole") {
      finish(noted.finish, noted.end);
      return null;
    }
    const { onClaudeHook } = await import("../live/hook-events.js");
    return await onClaudeHook({
      store,
      hook,
      claudePid,
      claudeConfigDir: claudeConfigDir(),
      note: (line) => writeErr(`nudge: ${line}\n`),
    });
  } catch (error) {
    // Said where the person sees it; claude goes on.
    if (hook.hook_event_name === "UserPromptSubmit" || hook.hook_event_name === "SessionStart")
      return { systemMessage: `nudge could not record this: ${errorMessage(error)}` };
    throw error;
  }
}

async function finish(sessionId: string, end: boolean, claudePid: number): Promise<void> {
  const store = await openStore(process.cwd());
  const { finishTurn } = await import("../live/hook-events.js");
  const { appendFile } = await import("node:fs/promises");
  const path = await import("node:path");
  const log = path.join(store.dir, "claude-hooks.log");
  const note = (line: string) =>
    void appendFile(log, `${new Date().toISOString()} session ${sessionId}: ${line}\n`).catch(() => undefined);
  try {
    await finishTurn({ store, claudePid, claudeConfigDir: claudeConfigDir(), note }, sessionId, end);
  } catch (error) {
    note(errorMessage(error));
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_INPUT) throw new Error(`the hook's input is larger than ${MAX_INPUT / 1024 / 1024} MB`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
