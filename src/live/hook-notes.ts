/**
 * What the short hooks of installed claude hooks leave for the detached process that does the
 * work (hook-events.ts): a prompt to begin a turn with (its user's edits still to capture), a
 * turn's end. Kept apart from the recorder so that the hooks claude waits on load little: a
 * prompt's hook notes it, starts the detached process and returns; claude's next tool waits in
 * PreToolUse (hook-gate.ts) until the capture is done.
 *
 * Order: a prompt is noted only when no turn's end is pending, so when both notes are there the
 * prompt came first (hook-events.ts begins it, then ends it).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../store/atomic-write.js";
import { bundleDir, type Store } from "../store/store-location.js";
import { END_FILE } from "../store/hook-locks.js";

/** A turn's end a Stop hook noted, for the first hook of the session that takes the lock. */
export const STOP_FILE = "claude-ui-stop.json";
/** A prompt a UserPromptSubmit hook noted: its turn is begun (the user's edits captured) by the detached process. */
export const PROMPT_FILE = "claude-ui-prompt.json";

const SESSION_ID = /^[A-Za-z0-9_-]{1,100}$/;

export function mappingFile(store: Store, claudeSessionId: string): string {
  return path.join(store.dir, "claude-ui", claudeSessionId);
}

/** The session folder recording claude's session `claudeSessionId`, or null. */
export async function mappedSession(store: Store, claudeSessionId: string): Promise<string | null> {
  const id = (await fs.readFile(mappingFile(store, claudeSessionId), "utf8").catch(() => "")).trim();
  if (!SESSION_ID.test(id)) return null;
  const dir = bundleDir(store, id);
  return (await fs.stat(path.join(dir, "manifest.json")).catch(() => null)) ? dir : null;
}

export async function pending(dir: string, file: string): Promise<boolean> {
  return (await fs.stat(path.join(dir, file)).catch(() => null)) !== null;
}

/** Note a turn's end (Stop / StopFailure). */
export async function noteStop(dir: string, event: string, claudeSessionId: string): Promise<void> {
  await writeFileAtomic(path.join(dir, STOP_FILE), JSON.stringify({ event, claudeSessionId }));
}

/**
 * Note a prompt, when that keeps the order plain: false (nothing noted) while another prompt or a
 * turn's end is still pending; the hook then does the work itself, after them.
 */
export async function notePrompt(
  dir: string,
  hook: { session_id: string; prompt?: string | undefined; transcript_path?: string | undefined },
): Promise<boolean> {
  if ((await pending(dir, STOP_FILE)) || (await pending(dir, PROMPT_FILE))) return false;
  // Where the turn's part of claude's transcript starts: claude writes the prompt there before the turn is begun (no file yet: at 0).
  const size = hook.transcript_path
    ? ((
        await fs
          .stat(hook.transcript_path)
          .catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? { size: 0 } : null))
      )?.size ?? null)
    : null;
  const note = { claudeSessionId: hook.session_id, prompt: hook.prompt ?? "", transcriptFrom: size };
  await writeFileAtomic(path.join(dir, PROMPT_FILE), JSON.stringify(note));
  return true;
}

/** What a hook did by noting: a detached process to start for the session (`end`: claude ended), nothing to do, or the whole work still to do here. */
export type Noted = { finish: string; end: boolean } | "nothing" | "whole";

/** The hooks that need not wait for the recorder: noted, for the detached process to do. */
export async function noteHook(
  store: Store,
  hook: {
    hook_event_name: string;
    session_id: string;
    prompt?: string | undefined;
    transcript_path?: string | undefined;
  },
): Promise<Noted> {
  const event = hook.hook_event_name;
  if (event !== "UserPromptSubmit" && event !== "Stop" && event !== "StopFailure" && event !== "SessionEnd")
    return "whole";
  const dir = await mappedSession(store, hook.session_id);
  if (!dir) return event === "UserPromptSubmit" ? "whole" : "nothing";
  const finish = path.basename(dir);
  if (event === "SessionEnd") {
    // The session stays "being recorded" (not cut off) until the detached process has closed it.
    await writeFileAtomic(path.join(dir, END_FILE), JSON.stringify({ claudeSessionId: hook.session_id }));
    return { finish, end: true };
  }
  if (event === "UserPromptSubmit") return (await notePrompt(dir, hook)) ? { finish, end: false } : "whole";
  await noteStop(dir, event, hook.session_id);
  return { finish, end: false };
}
