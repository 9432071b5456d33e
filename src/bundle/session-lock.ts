import { promises as fs } from "node:fs";
import os from "node:os";
import { UserError } from "../errors.js";

/**
 * One nudge process records a session at a time. The lock is a file holding the owner's pid; a
 * lock whose process is gone (kill -9, a crash) is stale and may be taken over.
 */
export interface LockOwner {
  pid: number;
  host: string;
}

export async function readLock(file: string): Promise<LockOwner | null> {
  try {
    const [pid, host] = (await fs.readFile(file, "utf8")).trim().split(" ");
    return { pid: Number(pid), host: host ?? "" };
  } catch {
    return null;
  }
}

export function isAlive(owner: LockOwner): boolean {
  // A lock written on another host cannot be checked from here; treat it as held.
  if (owner.host !== os.hostname()) return true;
  if (owner.pid === process.pid) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export async function isLocked(file: string): Promise<boolean> {
  const owner = await readLock(file);
  return owner !== null && isAlive(owner);
}

export async function acquireLock(file: string, sessionId: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(file, `${process.pid} ${os.hostname()}\n`, { flag: "wx" });
      return async () => {
        await fs.rm(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = await readLock(file);
      if (owner && isAlive(owner)) {
        throw new UserError(
          `session ${sessionId} is being recorded by another nudge process (pid ${owner.pid})`,
          "finish or quit that nudge first, or fork the session: nudge session fork " + sessionId,
        );
      }
      await fs.rm(file, { force: true }); // stale: its owner died without cleaning up
    }
  }
  throw new UserError(`could not lock session ${sessionId}`, "try again");
}
