import { promises as fs } from "node:fs";
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
