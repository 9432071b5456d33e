/**
 * Locks of a session recorded by installed hooks (`nudge hooks install --claude`). No nudge runs
 * for the session's whole life, so its lock names the claude process as owner: while that claude
 * lives, every other nudge sees the session as being recorded (never as cut off, never recovered
 * under it); once it is gone, the lock is stale and a cut-off turn is recovered as for any crash.
 * The short processes claude's hooks run take turns on a second lock, `hook.lock`.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { writeFileAtomic } from "./atomic-write.js";
import { acquireLock, holderText, isHeld, procRef, readLock, type HeldLock, type LockInfo } from "./locks.js";
import os from "node:os";

const HOOK_LOCK = "hook.lock";
/** claude's SessionEnd noted: the detached process closing the session has yet to take the hooks' lock. */
export const END_FILE = "claude-ui-end.json";
/** An end note older than this is a closing process that never ran: the session is cut off after all. */
const END_NOTE_MS = 60_000;

/** A hook waits this long for the one before it (a turn's end: a capture and a save). */
const WAIT_MS = 10_000;

export interface HookLock extends HeldLock {
  /** The session lock was this claude's already: a turn it began may be open. */
  ownedBefore: boolean;
}

/** Take the hooks' lock, then make the session lock this claude's (it may be absent or stale, never another live one's). */
export async function takeHookLock(
  dir: string,
  lockFile: string,
  sessionId: string,
  claudePid: number,
): Promise<HookLock> {
  const mutex = await acquireLock(path.join(dir, HOOK_LOCK), {
    what: `a hook of claude ${claudePid}`,
    waitMs: WAIT_MS,
    busy: (holder) =>
      new UserError(
        `session ${sessionId}: an earlier hook still runs (${holderText(holder)})`,
        "it is waited for at most 10 s",
      ),
  });
  try {
    const claude = procRef(claudePid);
    const current = await readLock(lockFile);
    const ownedBefore = current !== null && sameProc(current.owner, claude);
    if (!ownedBefore && isHeld(current)) {
      throw new UserError(
        `session ${sessionId} is being recorded by another process (${holderText(current!)})`,
        "it is recorded by that one",
      );
    }
    if (!ownedBefore) {
      const info: LockInfo = {
        host: os.hostname(),
        owner: claude,
        claude,
        what: `recording session ${sessionId} through claude's hooks`,
      };
      await writeFileAtomic(lockFile, JSON.stringify(info) + "\n");
    }
    return { ownedBefore, setClaude: async () => undefined, release: () => mutex.release() };
  } catch (error) {
    await mutex.release();
    throw error;
  }
}

/** Is a hook of this session running now (holding `hook.lock`)? */
export async function hookRunning(dir: string): Promise<boolean> {
  return isHeld(await readLock(path.join(dir, HOOK_LOCK)));
}

/**
 * claude has exited but its hooks' work is not done: a hook or the detached process that saves the
 * last turn and closes the session runs, or is about to (SessionEnd's note). Until then the session
 * is being recorded, not cut off (a listing must not say "crashed", nor a recovery step in).
 */
export async function closingAfterClaude(dir: string): Promise<boolean> {
  if (await hookRunning(dir)) return true;
  const noted = await fs.stat(path.join(dir, END_FILE)).catch(() => null);
  return noted !== null && Date.now() - noted.mtimeMs < END_NOTE_MS;
}

/** claude has ended: the session lock is let go (only when it is this claude's). */
export async function releaseForClaude(lockFile: string, claudePid: number): Promise<void> {
  const current = await readLock(lockFile);
  if (current && sameProc(current.owner, procRef(claudePid))) await fs.rm(lockFile, { force: true });
}

function sameProc(a: { pid: number; started: string | null }, b: { pid: number; started: string | null }): boolean {
  return a.pid === b.pid && (a.started === null || b.started === null || a.started === b.started);
}
