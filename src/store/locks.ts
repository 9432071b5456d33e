/**
 * Lock files: one per session (one nudge records it at a time) and one per work tree (one thing
 * at a time writes its files or nudge's index for it: a recording, a rewind, an undo, a fork put
 * in place). A lock names its owner, and the claude process that owner runs, each with its start
 * time, so that a pid reused after a crash or a reboot is not mistaken for the owner. A lock
 * whose owner is gone is stale and is taken over.
 */
import { readFileSync, promises as fs } from "node:fs";
import os from "node:os";
import * as z from "../base/zod.js";
import { UserError } from "../base/errors.js";
import path from "node:path";
import { ensureDir, writeFileAtomic } from "./atomic-write.js";
import { randomHex } from "../base/random-hex.js";

const Proc = z.object({ pid: z.int().check(z.positive()), started: z.nullable(z.string()) });
const LockSchema = z.object({ host: z.string(), owner: Proc, claude: z.nullable(Proc), what: z.optional(z.string()) });
export type LockInfo = z.infer<typeof LockSchema>;
type ProcRef = z.infer<typeof Proc>;

/** When a process started (Linux: clock ticks since boot, from /proc), to tell it from a reused pid. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null; // field 22 of stat
  } catch {
    return null; // not Linux, or no such process
  }
}

export function procRef(pid: number): ProcRef {
  return { pid, started: processStart(pid) };
}

export function isRunning(proc: ProcRef): boolean {
  try {
    process.kill(proc.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return proc.started === null || processStart(proc.pid) === proc.started;
}

export async function readLock(file: string): Promise<LockInfo | null> {
  try {
    return LockSchema.parse(JSON.parse(await fs.readFile(file, "utf8")));
  } catch {
    return null;
  }
}

/** Does a live process hold this lock (one written on another host counts as held)? */
export function isHeld(lock: LockInfo | null): boolean {
  if (!lock) return false;
  // A lock written on another host (a shared file system) cannot be checked from here: held.
  return lock.host !== os.hostname() || lock.owner.pid === process.pid || isRunning(lock.owner);
}

export async function isLocked(file: string): Promise<boolean> {
  return isHeld(await readLock(file));
}

/**
 * Whether a session's claude may be running, from one read of its lock: "recording" (its nudge
 * holds the lock), an orphan (its nudge died, its claude did not), or null (nothing runs).
 */
export async function lockActivity(file: string): Promise<LockActivity> {
  return activityOf(await readLock(file));
}

export type LockActivity = "recording" | { orphanPid: number } | null;

/** The same, from a lock already read. */
export function activityOf(lock: LockInfo | null): LockActivity {
  if (isHeld(lock)) return "recording";
  return lock?.claude && isRunning(lock.claude) ? { orphanPid: lock.claude.pid } : null;
}

export interface HeldLock {
  /** Note the claude process this owner runs, so a recovery can stop it if this owner dies. */
  setClaude(pid: number | undefined): Promise<void>;
  release(): Promise<void>;
}

export interface LockPurpose {
  /** What the holder is doing, for the message another process shows ("recording session 3f2a…"). */
  what: string;
  /** The error for a lock a live process holds. */
  busy: (holder: LockInfo) => UserError;
  /** How long to wait for a live holder to let go before giving up (short operations only). */
  waitMs?: number;
  /** Is this holder worth waiting for (default: yes)? One that holds for a long time is refused at once. */
  waitsFor?: (holder: LockInfo) => boolean;
}

/**
 * Take a lock file, or fail with `busy`. A lock whose holder is gone (pid dead, or reused by
 * another process since) is taken over; a live holder is waited for up to `waitMs`.
 */
export async function acquireLock(file: string, purpose: LockPurpose): Promise<HeldLock> {
  const info: LockInfo = { host: os.hostname(), owner: procRef(process.pid), claude: null, what: purpose.what };
  const deadline = Date.now() + (purpose.waitMs ?? 0);
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.writeFile(file, JSON.stringify(info) + "\n", { flag: "wx" });
      return {
        setClaude: async (pid) =>
          writeFileAtomic(file, JSON.stringify({ ...info, claude: pid ? procRef(pid) : null }) + "\n"),
        release: () => fs.rm(file, { force: true }),
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        await ensureDir(path.dirname(file));
        continue;
      }
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const current = await readLock(file);
      if (isHeld(current)) {
        if (Date.now() >= deadline || purpose.waitsFor?.(current!) === false) throw purpose.busy(current!);
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      if (attempt > 20 && Date.now() >= deadline)
        throw new UserError(`could not take the lock ${file}`, "another nudge is starting on it; try again");
      // Read between another process's create and its write, a live lock is empty. Taken over then, its
      // holder would go on holding it too (its write lands in the file moved aside): a young one is
      // waited for, and only one left empty for seconds is a dead process's.
      if (current === null && (await ageMs(file)) < YOUNG_LOCK_MS) {
        await new Promise((r) => setTimeout(r, 10));
        continue;
      }
      const live = await takeOver(file);
      if (live) {
        if (Date.now() >= deadline || purpose.waitsFor?.(live) === false) throw purpose.busy(live);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
}

/** How long a lock may be seen empty while its creator writes it. */
const YOUNG_LOCK_MS = 2_000;

/** How long ago a file was last modified (Infinity: gone, or unreadable). */
async function ageMs(file: string): Promise<number> {
  const stat = await fs.stat(file).catch(() => null);
  return stat ? Date.now() - stat.mtimeMs : Infinity;
}

/** One nudge process records a session at a time. */
export function sessionLock(file: string, sessionId: string): Promise<HeldLock> {
  return acquireLock(file, {
    what: `recording session ${sessionId}`,
    busy: (holder) =>
      new UserError(
        `session ${sessionId} is being recorded by another nudge process (${holderText(holder)})`,
        "finish or quit that nudge first, or fork the session: nudge session fork " + sessionId,
      ),
  });
}

/** The holder as a person reads it: its pid, the host when it is another one. */
export function holderText(holder: LockInfo): string {
  return `pid ${holder.owner.pid}${holder.host !== os.hostname() ? ` on ${holder.host}` : ""}`;
}

/**
 * Remove a stale lock so that of two processes racing for it, only one gets it: move it aside
 * (only one rename can succeed), and if what was moved turns out to be a live lock after all,
 * put it back (and return it). An orphaned claude of the dead owner is stopped before anything is recorded.
 */
async function takeOver(file: string): Promise<LockInfo | null> {
  const aside = `${file}.${process.pid}.${randomHex(4)}`;
  try {
    await fs.rename(file, aside);
  } catch {
    return null; // someone else moved it first; try again
  }
  const moved = await readLock(aside);
  if (isHeld(moved)) {
    await fs.link(aside, file).catch(() => undefined);
    await fs.rm(aside, { force: true });
    return moved; // live after all: the caller waits for it or says who holds it
  }
  if (moved?.claude && isRunning(moved.claude)) await stopOrphan(moved.claude.pid);
  await fs.rm(aside, { force: true });
  return null;
}

/** A claude left running by a nudge that died would go on changing files nobody records. */
async function stopOrphan(pid: number): Promise<void> {
  try {
    process.kill(-pid, "SIGTERM"); // its whole process group: claude runs in one of its own
  } catch {
    return;
  }
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}
