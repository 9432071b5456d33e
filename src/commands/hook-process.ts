/**
 * One process of the hooks `nudge hooks install --claude` writes: one hook's JSON on stdin, an
 * answer on stdout when there is one. It never breaks claude: whatever fails is one line on stderr
 * (which claude shows in its debug output) and exit 0, never 2 (which would block claude); it ends
 * itself before claude's own timeout for the hook.
 *
 * claude waits on it before every prompt and every tool, so it loads little: bin.ts runs it without
 * the command tree, the store is found without git where git's answer is plain (snapshot/git-discovery.ts),
 * and the recorder is loaded only by the hooks that record (live/hook-events.ts), mostly in a detached
 * `--finish` process.
 */
import { errorMessage } from "../base/errors.js";
import { claudeConfigDir } from "../claude/transcript.js";
import * as z from "../base/zod.js";
import { fastRepoLocation } from "../snapshot/repo-location.js";
import { openStore, type Store } from "../store/store-location.js";
import { writeErr, writeOut } from "../terminal/output.js";
import { HookInput } from "../live/hook-input.js";

/** Seconds nudge gives itself per hook, under the `timeout` its entry gives claude (claude-settings-hooks.ts). */
const HOOK_LIMIT_S: Record<string, number> = {
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
type Input = z.infer<typeof Input>;

/** `nudge hooks claude-event` without options: the hook's answer on stdout, exit 0 whatever happens. */
export async function runHook(): Promise<void> {
  // However long git or the disk takes, claude gets its answer (no answer: the hook is as if absent).
  // Until the event is known, the longest any hook gets; then its own (hook()).
  exitAfter(Math.max(...Object.values(HOOK_LIMIT_S)));
  await guarded(async () => {
    const out = await hook();
    if (out) writeOut(`${JSON.stringify(out)}\n`);
  });
}

/** `--finish`: the detached end of the turn a Stop hook noted (`end`: claude ended, the session is closed). */
export async function runFinish(sessionId: string, end: boolean, claudePid: number): Promise<void> {
  exitAfter(FINISH_LIMIT_S);
  await guarded(() => finish(sessionId, end, claudePid));
}

function exitAfter(seconds: number): void {
  setTimeout(() => process.exit(0), seconds * 1000).unref();
}

async function guarded(work: () => Promise<void>): Promise<void> {
  try {
    // A claude nudge runs (`claude run --tui`: TUI_RECORDING_ENV in hook-gate.ts; nudge's own
    // frontend and loops: claude-process.ts's mark) is recorded by that nudge. Read before anything loads.
    if (process.env.NUDGE_TUI_SESSION || process.env.NUDGE_CLAUDE_RUN) return;
    await work();
  } catch (error) {
    writeErr(`nudge: not recorded: ${errorMessage(error)}\n`);
  } finally {
    process.exitCode = 0;
  }
}

async function hook(): Promise<object | null> {
  const text = await readStdin();
  const parsed = Input.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error("the hook's input is not what claude sends");
  const hook = parsed.data;
  const limit = HOOK_LIMIT_S[hook.hook_event_name];
  if (limit) exitAfter(limit);
  let store;
  try {
    // The session's first hook asks git itself (its message is git's when there is no repository);
    // the hooks claude waits on during a session find the same store without starting git.
    store = await openStore(
      hook.cwd,
      process.env,
      hook.hook_event_name === "SessionStart" ? undefined : fastRepoLocation,
    );
  } catch (error) {
    // Not a git repository (or no store possible): claude goes on unrecorded, said once per session.
    return hook.hook_event_name === "SessionStart"
      ? { systemMessage: `nudge is not recording this session: ${errorMessage(error)}` }
      : null;
  }
  // Before every tool of claude's: only what the gate and the rules need is loaded.
  if (hook.hook_event_name === "PreToolUse") return (await import("../live/hook-gate.js")).preToolUse(store, hook);
  try {
    return await record(store, hook);
  } catch (error) {
    // Said where the person sees it; claude goes on.
    if (hook.hook_event_name === "UserPromptSubmit" || hook.hook_event_name === "SessionStart")
      return { systemMessage: `nudge could not record this: ${errorMessage(error)}` };
    throw error;
  }
}

async function record(store: Store, hook: Input): Promise<object | null> {
  const claudePid = /^\d{1,9}$/.test(process.env.CLAUDE_PID ?? "") ? Number(process.env.CLAUDE_PID) : process.ppid;
  // A prompt, a turn's end, claude's end: noted, and done by a detached process (the recorder is not loaded here).
  const noted = await (await import("../live/hook-notes.js")).noteHook(store, hook);
  if (noted === "nothing") return null;
  if (noted !== "whole") {
    const args = [
      process.argv[1]!,
      "hooks",
      "claude-event",
      "--finish",
      noted.finish,
      "--claude-pid",
      String(claudePid),
    ];
    if (noted.end) args.push("--end");
    const { spawn } = await import("node:child_process");
    spawn(process.execPath, args, { cwd: hook.cwd, detached: true, stdio: "ignore", env: process.env }).unref();
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
