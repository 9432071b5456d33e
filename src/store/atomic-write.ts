import { closeSync, fsyncSync, openSync, promises as fs } from "node:fs";
import path from "node:path";
import { faultPoint } from "../base/fault-injection.js";
import { randomHex } from "../base/random-hex.js";

/**
 * Write a whole file so that a reader (or a crash at any instant) sees either the old content or
 * the new, never a mix: write a temp file beside it, fsync it, rename it over, fsync the folder.
 * `mode` is the new file's (less the umask): 0o600 for what only its owner may read.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o666): Promise<void> {
  await replaceAtomically(file, async (temp) => {
    const handle = await fs.open(temp, "wx", mode);
    try {
      faultPoint("atomic-write");
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}

/** Copy a file atomically, in the kernel (never read whole into memory: transcripts grow large). */
export async function copyFileAtomic(from: string, to: string): Promise<void> {
  await replaceAtomically(to, async (temp) => {
    faultPoint("atomic-write");
    await fs.copyFile(from, temp, fs.constants.COPYFILE_EXCL);
    const handle = await fs.open(temp, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}

/**
 * Temp files are named `.<name>.<pid>.<random>.tmp` beside their target: whatever fails, the
 * temp is removed, and `sweepTempFiles` clears those a killed process left.
 */
export async function replaceAtomically(file: string, fill: (temp: string) => Promise<void>): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomHex(4)}.tmp`);
  try {
    await fill(temp);
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncDir(dir);
}

const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * Remove the temp files of atomic writes whose process is gone (killed mid-write), in `dir` and
 * the folders below it. On a full disk they would hold the space nudge needs to go on.
 */
export async function sweepTempFiles(dir: string, isAlive: (pid: number) => boolean): Promise<void> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await sweepTempFiles(full, isAlive);
    const pid = TEMP_NAME.exec(entry.name)?.[1];
    if (entry.isFile() && pid && !isAlive(Number(pid))) await fs.rm(full, { force: true });
  }
}

/**
 * `mkdir -p`, one folder at a time. Node's own recursive mkdir spins forever where a folder
 * cannot be made under an existing one (under /proc, say: ENOENT, then EEXIST for the parent,
 * again and again); this fails with the first folder it cannot make, or a file in the way.
 */
export async function ensureDir(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const stat = await fs.stat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    if (stat?.isDirectory()) break;
    if (stat)
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${at}'`), {
        code: "ENOTDIR",
        syscall: "mkdir",
        path: at,
      });
    missing.push(at);
    if (path.dirname(at) === at) break;
  }
  for (const folder of missing.reverse()) {
    await fs.mkdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error; // made meanwhile by another process: fine
    });
  }
}

/** `syncDir` for a writer that must not yield between its steps (the stream's piece finished between two appends). */
export function syncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** fsync a directory so a rename in it survives power loss; not every platform allows it. */
async function syncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, "r");
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    await handle?.close();
  }
}
