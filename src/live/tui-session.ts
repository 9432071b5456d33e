/**
 * `nudge claude run --tui`: claude's own terminal UI, untouched, with the same recorder under it.
 * claude gets the terminal as it is (stdio inherited, same process group: resize, raw keys, mouse,
 * paste and Ctrl-Z reach it as they would without nudge); its hooks tell nudge when a turn begins
 * (UserPromptSubmit: the user's edits captured apart), when its tools may change files (PreToolUse:
 * the edits gate) and when it ends (Stop / StopFailure: the code captured, the turn's part of
 * claude's transcript taken as its lines, the turn saved). nudge says nothing while claude's
 * screen is up: warnings are said once claude has exited.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { bundleFiles, newSessionId, requireOwnRepository, type Store } from "../store/store.js";
import { CLAUDE_UI, lockWorkTree } from "../store/work-tree-lock.js";
import { registerRecording } from "../store/work-tree-recordings.js";
import type { ClaudeFlags } from "../claude/claude-process.js";
import { interactiveArgs } from "../claude/interactive-args.js";
import { SessionRecorder } from "../recorder/session-recorder.js";
import { refuseIfInterrupted } from "../time-travel/rewind.js";
import type { ToolGuard } from "./control-handler.js";
import { recoverCrashedIn } from "./crash-recovery.js";
import { withEditsGate } from "./edits-gate.js";
import {
  chooseSession,
  createSession,
  reopenSession,
  sweepAbandonedSessions,
  type OpenedSession,
  type SessionChoice,
} from "./open-session.js";
import { discardSession, recorderContext } from "./run-session.js";
import { cutTranscript } from "./transcript-cut.js";
import { ensureTranscriptPlaced } from "./transcript-placement.js";
import { openPartLines, TranscriptTail } from "./transcript-tail.js";
import { HookServer } from "./tui-hooks.js";
import { TUI_RECORDING_ENV } from "./hook-gate.js";
import { TuiTurns } from "./tui-turns.js";

export interface TuiInput {
  store: Store;
  cwd: string;
  bin: string;
  claudeConfigDir: string;
  env: NodeJS.ProcessEnv;
  choice: SessionChoice;
  flags: Omit<ClaudeFlags, "resume" | "maxTurns" | "tools">;
  firstPrompt?: string;
  force?: boolean;
  /** The project's rules, answered through the same hooks. */
  guard: ToolGuard | null;
  say(line: string): void;
  warn(line: string): void;
}

export interface TuiOutcome {
  id: string;
  turns: number;
  discarded: boolean;
  /** claude's own exit status (128 + the signal's number when a signal ended it). */
  exitCode: number;
}

export async function runTuiSession(input: TuiInput): Promise<TuiOutcome> {
  const { store } = input;
  const existing = await chooseSession(store, input.choice);
  if (existing) await requireOwnRepository(store, existing.manifest);
  const root = existing?.manifest.repo.root ?? store.repoRoot;
  const newId = newSessionId();
  const workTree = input.force
    ? null
    : await lockWorkTree(store, root, { what: `recording session ${existing?.manifest.id ?? newId} ${CLAUDE_UI}` });
  const registration = await registerRecording(store, root, existing?.manifest.id ?? newId);
  // Said after claude's screen is gone: written while it is up, they would tear it.
  const later: string[] = [];
  try {
    for (const other of await registration.live())
      input.warn(
        `session ${other.session} is also being recorded in this work tree (pid ${other.pid}): turns of either may hold the other's changes`,
      );
    await refuseIfInterrupted(store, root);
    const context = (manifest: OpenedSession["manifest"], cwd: string) =>
      recorderContext({ ...input, registration }, manifest, cwd);
    const catchUp = (dir: string, cwd: string) => (manifest: OpenedSession["manifest"]) =>
      openPartLines(dir, input.claudeConfigDir, cwd, manifest);
    const unreadable: string[] = [];
    await recoverCrashedIn(store, root, {
      except: existing?.manifest.id ?? null,
      open: async (dir, manifest) =>
        SessionRecorder.start(
          dir,
          manifest,
          await context(manifest, manifest.repo.cwd),
          { warning: (w) => input.warn(`session ${manifest.id}: ${w}`) },
          catchUp(dir, manifest.repo.cwd),
        ),
      warn: (w) => input.warn(w),
      unreadable: (dir) => unreadable.push(dir),
    });
    await sweepAbandonedSessions(unreadable);
    const opened = existing ? await reopenSession(store, existing) : await createSession(store, input.cwd, newId);
    const cwd = opened.isNew ? input.cwd : opened.manifest.repo.cwd;
    const recorder = await SessionRecorder.start(
      opened.dir,
      opened.manifest,
      await context(opened.manifest, cwd),
      { warning: (w) => later.push(w) },
      catchUp(opened.dir, cwd),
    );
    let exitCode = 1;
    try {
      await registration.setSession(recorder.manifest.id);
      const tail = new TranscriptTail(opened.dir, input.claudeConfigDir, cwd, recorder.manifest);
      const turns = new TuiTurns(recorder, tail, (w) => later.push(w));
      await turns.recordMissed();
      const server = await HookServer.start({
        onEvent: (event, hook) => turns.event(event, hook),
        onCallback: async (id, hook) => {
          await turns.handled();
          return gate.answer(id, hook);
        },
      });
      const gate = withEditsGate(input.guard, () => recorder.capturesSettled());
      const settingsFile = bundleFiles(opened.dir).claudeUiSettings;
      try {
        await server.writeSettings(settingsFile, gate.hooks() ?? {});
        const resume = await resumePoint(input, recorder, cwd);
        const m = recorder.manifest;
        input.say(
          `● nudge ${opened.isNew ? "recording" : "continuing"} session ${m.id} in claude's own UI${m.parent ? ` (fork of ${m.parent.id} at turn ${m.parent.turn})` : ""} · ${opened.dir}`,
        );
        // Hooks installed in claude's settings (hook-events.ts) see this and leave the recording to this nudge.
        const env = { ...input.env, [TUI_RECORDING_ENV]: m.id };
        exitCode = await runClaude(
          input.bin,
          interactiveArgs({ ...input.flags, resume }, { settingsFile, prompt: input.firstPrompt }),
          cwd,
          env,
        );
        await turns.claudeExited();
      } finally {
        // The file holds the hook secret: it never outlives the recording, however it ends.
        await fs.rm(settingsFile, { force: true }).catch(() => undefined);
        await server.close();
      }
    } finally {
      await recorder.close();
    }
    const discarded = opened.isNew && !recorder.anyTurnBegun;
    if (discarded) await discardSession(store, recorder.files.dir, recorder.manifest.id).catch(() => undefined);
    for (const w of later) input.warn(w);
    const saved = recorder.manifest.turns.length - 1;
    if (!discarded) {
      const id = recorder.manifest.id;
      input.say(`● nudge recorded session ${id}: ${saved} turn${saved === 1 ? "" : "s"} · nudge session show ${id}`);
      // claude's own resume line above names the hooks file nudge just removed: it fails as printed.
      const claudeId = recorder.claudeSessionId;
      input.say(
        `  go on recorded: nudge claude run --tui -r ${id}${claudeId ? ` (unrecorded: claude --resume ${claudeId})` : ""}`,
      );
    }
    return { id: recorder.manifest.id, turns: saved, discarded, exitCode };
  } finally {
    await registration.end();
    await workTree?.release();
  }
}

/** The conversation claude's UI continues: a fork point's, else the last turn's (its transcript placed where --resume looks). */
async function resumePoint(input: TuiInput, recorder: SessionRecorder, cwd: string): Promise<ClaudeFlags["resume"]> {
  const manifest = recorder.manifest;
  const resume = manifest.resume
    ? { claudeSessionId: manifest.resume.claudeSessionId, atUuid: manifest.resume.atUuid, fork: true }
    : recorder.claudeSessionId
      ? { claudeSessionId: recorder.claudeSessionId, atUuid: null, fork: false }
      : undefined;
  if (!resume) return undefined;
  const placed = await ensureTranscriptPlaced({
    bundleDir: recorder.files.dir,
    manifest,
    claudeSessionId: resume.claudeSessionId,
    claudeConfigDir: input.claudeConfigDir,
    cwd,
  });
  if (!resume.atUuid || !placed) return resume;
  const id = await cutTranscript(placed, {
    atUuid: resume.atUuid,
    claudeSessionId: resume.claudeSessionId,
    configDir: input.claudeConfigDir,
    cwd,
  });
  return { claudeSessionId: id, atUuid: null, fork: false };
}

/**
 * claude in this terminal as it is. Same process group: Ctrl-Z stops both and `fg` continues
 * both; a Ctrl-C or hang-up that reaches nudge too is claude's to act on, and nudge ends after it.
 */
async function runClaude(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const ignore = () => undefined;
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGQUIT", "SIGHUP", "SIGTERM"];
  const child = spawn(bin, args, { cwd, env, stdio: "inherit" });
  const forward = (signal: NodeJS.Signals) => (signal === "SIGTERM" ? child.kill("SIGTERM") : ignore());
  for (const s of signals) process.on(s, forward);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code, signal) => resolve(code ?? 128 + signalNumber(signal)));
    });
  } finally {
    for (const s of signals) process.off(s, forward);
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGQUIT: 3,
    SIGKILL: 9,
    SIGTERM: 15,
  };
  return (signal && numbers[signal]) ?? 1;
}
