/**
 * A plain `claude` recorded through the hooks `nudge hooks install --claude` writes: no nudge runs
 * beside it, so each hook runs `nudge hooks claude-event` for a moment, with the same recorder,
 * transcript tail and turns as `claude run --tui` (tui-turns.ts). SessionStart opens the session
 * of claude's session id (turn 0), UserPromptSubmit begins a turn (the user's edits captured
 * apart), PreToolUse is the edits gate and the project's rules, Stop / StopFailure end a turn and
 * SessionEnd closes the session. What lasts between hooks is in the session folder: the journal,
 * the open turn's part of claude's transcript (claude-ui.json), a prompt and a turn's end still to
 * do (hook-notes.ts), under the locks of hook-locks.ts.
 *
 * The hooks claude waits on stay short: a prompt, a turn's end and claude's end are noted by the
 * hook (hook-notes.ts), which starts a detached `--finish` process to do them (a turn's end cannot
 * be done inside its Stop hook anyway: claude writes the turn's last lines after the hook
 * returns); whichever process of the session takes the lock first does what is noted, in order.
 * claude's next tool waits for a prompt's capture in PreToolUse. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { writeFileAtomic, ensureDir } from "../store/atomic-write.js";
import { claimForClaude } from "../store/work-tree-recordings.js";
import { END_FILE, releaseForClaude, takeHookLock } from "../store/hook-locks.js";
import type { Manifest } from "../store/manifest-schema.js";
import { bundleDir, bundleFiles, readManifest, type Store } from "../store/store.js";
import { SessionRecorder, type RecorderContext } from "../recorder/session-recorder.js";
import { ownPathExcludes } from "../snapshot/own-paths.js";
import { untrackedCacheVerdict } from "../snapshot/untracked-cache.js";
import * as z from "../base/zod.js";
import { preToolUse } from "./hook-gate.js";
import { mappedSession, mappingFile, pending, PROMPT_FILE, STOP_FILE } from "./hook-notes.js";
import { createSession, privateIndexFile } from "./open-session.js";
import { discardSession } from "./run-session.js";
import { openPartLines, TranscriptTail } from "./transcript-tail.js";
import type { HookInput } from "./hook-input.js";
import { TuiTurns } from "./tui-turns.js";

const PendingStop = z.object({
  event: z.enum(["Stop", "StopFailure"]),
  claudeSessionId: z.string().check(z.regex(/^[A-Za-z0-9._-]{1,200}$/)),
});

const PendingPrompt = z.object({
  claudeSessionId: PendingStop.shape.claudeSessionId,
  prompt: z.string(),
  transcriptFrom: z.nullable(z.number().check(z.int(), z.nonnegative())),
});

export interface HookContext {
  store: Store;
  hook: HookInput & { cwd: string };
  claudePid: number;
  claudeConfigDir: string;
  note(line: string): void;
}

/** One hook of claude's: what to answer on stdout (null: nothing). */
export async function onClaudeHook(c: HookContext): Promise<object | null> {
  switch (c.hook.hook_event_name) {
    case "SessionStart":
      await sessionOf(c, true);
      return null;
    case "UserPromptSubmit": {
      // The way without a detached process (hook-notes.ts notes a prompt when it can): the session
      // is new, or a prompt or a turn's end is still pending, which go first.
      const dir = (await sessionOf(c, true))!;
      await withRecorder(c, dir, async (recorder, turns) => {
        await doNoted(dir, recorder, turns);
        await beginTurn(recorder, turns, c.hook);
      });
      return null;
    }
    case "PreToolUse":
      return preToolUse(c.store, c.hook);
    default:
      return null;
  }
}

async function beginTurn(
  recorder: SessionRecorder,
  turns: TuiTurns,
  hook: HookInput,
  transcriptFrom?: number,
): Promise<void> {
  if (!recorder.turnInProgress) await turns.recordMissed(transcriptFrom);
  await turns.event("UserPromptSubmit", hook);
  // The user's edits are durable before claude's first tool (which waits for this process's lock or its note).
  await recorder.capturesSettled();
}

/** What hooks noted and nobody did yet, in the order they came (hook-notes.ts): a prompt's turn begun, a turn ended. */
async function doNoted(dir: string, recorder: SessionRecorder, turns: TuiTurns): Promise<void> {
  const prompt = await readNote(dir, PROMPT_FILE, PendingPrompt);
  if (prompt) {
    try {
      if (prompt.transcriptFrom !== null) turns.transcriptFrom(prompt.claudeSessionId, prompt.transcriptFrom);
      const hook = { hook_event_name: "UserPromptSubmit", session_id: prompt.claudeSessionId, prompt: prompt.prompt };
      await beginTurn(recorder, turns, hook, prompt.transcriptFrom ?? undefined);
    } finally {
      await fs.rm(path.join(dir, PROMPT_FILE), { force: true });
    }
  }
  await endNotedTurn(dir, recorder, turns);
}

/** The detached end of a turn (`end`: of claude, then the session is closed, and dropped if no prompt was recorded). */
export async function finishTurn(c: Omit<HookContext, "hook">, sessionId: string, end: boolean): Promise<void> {
  const dir = bundleDir(c.store, sessionId);
  // A hook of the session did it first.
  if (!end && !(await pending(dir, STOP_FILE)) && !(await pending(dir, PROMPT_FILE))) return;
  const lockFile = bundleFiles(dir).lock;
  let discard = false;
  let allSaved = false;
  await withRecorder(
    c,
    dir,
    async (recorder, turns) => {
      await doNoted(dir, recorder, turns);
      if (!end) return;
      // Its Stop may not have come (claude exited at once): the turn's end line, if claude wrote it, says it finished.
      await turns.claudeExited(1000);
      await recorder.settled();
      discard = !recorder.anyTurnBegun;
      allSaved = recorder.allSaved;
    },
    undefined,
    end,
  );
  if (!end) return;
  if (discard) {
    await discardSession(c.store, dir, sessionId);
    await forgetMapping(c.store, sessionId);
  }
  // The index kept between hooks goes with claude; a turn left unsaved (a failed save) still needs it for its recovery.
  const indexFile = privateIndexFile(c.store, sessionId);
  if (allSaved) await Promise.all([indexFile, keptIndexState(indexFile)].map((f) => fs.rm(f, { force: true })));
  await releaseForClaude(lockFile, c.claudePid);
  await fs.rm(path.join(dir, END_FILE), { force: true });
}

const keptIndexState = (indexFile: string) => `${indexFile}.kept.json`;

/** A turn's end a Stop hook noted and nobody did yet: done now, before anything else of the session. */
async function endNotedTurn(dir: string, recorder: SessionRecorder, turns: TuiTurns): Promise<void> {
  const stop = await readNote(dir, STOP_FILE, PendingStop);
  if (!stop) return;
  try {
    await turns.event(stop.event, { hook_event_name: stop.event, session_id: stop.claudeSessionId });
    await turns.handled();
    await recorder.settled();
  } finally {
    await fs.rm(path.join(dir, STOP_FILE), { force: true });
  }
}

async function readNote<T extends z.ZodMiniType>(dir: string, file: string, schema: T): Promise<z.infer<T> | null> {
  try {
    return schema.parse(JSON.parse(await fs.readFile(path.join(dir, file), "utf8")));
  } catch {
    return null;
  }
}

/** The session recording claude's session `hook.session_id`: made (with turn 0) when `create` and there is none. */
async function sessionOf(c: HookContext, create: boolean): Promise<string | null> {
  const mapped = await mappedSession(c.store, c.hook.session_id);
  if (mapped) {
    if (c.hook.hook_event_name === "SessionStart") await withRecorder(c, mapped, async () => undefined); // a crashed turn is recovered, the lock is this claude's
    return mapped;
  }
  if (!create) return null;
  const opened = await createSession(c.store, c.hook.cwd);
  try {
    await withRecorder(c, opened.dir, async () => undefined, opened.manifest);
  } catch (error) {
    await fs.rm(opened.dir, { recursive: true, force: true });
    throw error;
  }
  const file = mappingFile(c.store, c.hook.session_id);
  await ensureDir(path.dirname(file));
  await writeFileAtomic(file, opened.manifest.id);
  return opened.dir;
}

async function forgetMapping(store: Store, sessionId: string): Promise<void> {
  const dir = path.join(store.dir, "claude-ui");
  for (const name of await fs.readdir(dir).catch(() => [])) {
    if ((await fs.readFile(path.join(dir, name), "utf8").catch(() => "")).trim() === sessionId)
      await fs.rm(path.join(dir, name), { force: true });
  }
}

/** The session's recorder for one hook: its open turn (if an earlier hook of this claude began one) open again. */
async function withRecorder(
  c: Omit<HookContext, "hook">,
  dir: string,
  work: (recorder: SessionRecorder, turns: TuiTurns) => Promise<void>,
  created?: Manifest,
  ends = false,
): Promise<void> {
  const lock = await takeHookLock(dir, bundleFiles(dir).lock, path.basename(dir), c.claudePid);
  let recorder: SessionRecorder;
  let manifest: Manifest;
  try {
    // Read under the lock: the hook before this one (a turn's end) may have saved a turn while this one waited.
    manifest = created ?? (await readManifest(dir));
    const cwd = manifest.repo.cwd;
    const catchUp = (m: typeof manifest) => openPartLines(dir, c.claudeConfigDir, cwd, m);
    recorder = await SessionRecorder.start(
      dir,
      manifest,
      await hookRecorderContext(c, manifest),
      { warning: c.note },
      catchUp,
      { lock, reopen: lock.ownedBefore, goesOn: !ends },
    );
  } catch (error) {
    await lock.release();
    throw error;
  }
  try {
    const tail = new TranscriptTail(dir, c.claudeConfigDir, manifest.repo.cwd, recorder.manifest);
    const turns = new TuiTurns(recorder, tail, c.note);
    if (recorder.turnInProgress) turns.adopt(await tail.reopen());
    await work(recorder, turns);
  } finally {
    await recorder.close();
  }
}

async function hookRecorderContext(c: Omit<HookContext, "hook">, manifest: Manifest): Promise<RecorderContext> {
  const root = manifest.repo.root;
  const indexFile = privateIndexFile(c.store, manifest.id);
  return {
    claudeConfigDir: c.claudeConfigDir,
    cwd: manifest.repo.cwd,
    exclude: ownPathExcludes(root, c.store.ownDirs),
    indexFile,
    untrackedCache: await untrackedCacheVerdict(path.join(c.store.dir, "index"), root),
    keptIndexState: keptIndexState(indexFile),
    sharedWith: (await claimForClaude(c.store, root, manifest.id, c.claudePid)).during,
  };
}
