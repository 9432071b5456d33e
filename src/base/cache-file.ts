import { closeSync, constants, fstatSync, openSync, promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import { randomHex } from "./random-hex.js";

/**
 * Replace a cache file whole (a temp file beside it, renamed over), not fsynced: a torn or lost
 * cache only makes its reader work it out again. The temp is named as atomic-write.ts names its
 * own, so one a kill leaves is swept the same way. Best effort: false when it could not be written.
 */
export async function writeCacheFile(file: string, text: string): Promise<boolean> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomHex(4)}.tmp`);
  try {
    await fs.writeFile(temp, text);
    await fs.rename(temp, file);
    return true;
  } catch {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    return false;
  }
}

/**
 * A cache file opened to read, when it is a regular file (null when missing or anything else): a
 * FIFO put in its place would block a plain open until someone writes to it, a command hung.
 */
export function openCacheFile(file: string): number | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (fstatSync(fd).isFile()) return fd;
  } catch {
    // unreadable: no cache
  }
  closeSync(fd);
  return null;
}

/** A cache file's text, when it is a regular file of at most `most` bytes; else null (made again). */
export function readCacheFile(file: string, most = 64 << 20): string | null {
  const fd = openCacheFile(file);
  if (fd === null) return null;
  try {
    return fstatSync(fd).size <= most ? readFileSync(fd, "utf8") : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
