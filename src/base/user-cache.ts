/**
 * nudge's folder among the user's caches ($XDG_CACHE_HOME, else ~/.cache): not the shared temp
 * folder, so no other user can put files in it, and it outlives a reboot. Imports only node's own
 * modules: the bin reads it before the compile cache is on.
 */
import os from "node:os";
import path from "node:path";

export function userCacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".cache"), "nudge");
}
