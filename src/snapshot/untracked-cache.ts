/**
 * Whether git's untracked cache may be used for a work tree. It relies on folder mtimes changing
 * when entries are added or removed, which some file systems do not guarantee; git's own check
 * takes several seconds (it waits for the clock), so it runs once per work tree, detached, in the
 * background, and leaves its verdict in a file. Until the verdict is known, scans go without the
 * cache: slower, never wrong.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { promises as fs, statSync } from "node:fs";
import path from "node:path";
import { readCacheFile } from "../base/cache-file.js";

/** git's check takes seconds; a check folder left longer than this was cut off. */
const CHECK_TAKEN_OVER_MS = 60_000;

export async function untrackedCacheVerdict(cacheDir: string, root: string): Promise<boolean> {
  // The tests pin it, to exercise both paths without waiting for the check.
  const forced = process.env.NUDGE_UNTRACKED_CACHE;
  if (forced === "0" || forced === "1") return forced === "1";
  const name = `untracked-cache-${createHash("sha1").update(root).digest("hex").slice(0, 12)}`;
  const verdict = readCacheFile(path.join(cacheDir, `${name}.verdict`), 4096);
  const dev = statSync(root).dev;
  const [result, checkedOn] = verdict?.trim().split(" ") ?? [];
  if (result && Number(checkedOn) === dev) return result === "ok";
  await startCheck(path.join(cacheDir, name), dev).catch(() => undefined);
  return false;
}

/**
 * The check runs in a scratch repository of nudge's own on the work tree's device: never in the
 * work tree (it creates files there), never on the user's index (update-index would hold its lock
 * for the seconds the check takes, and the user's git, or claude's, would fail meanwhile). It
 * outlives this nudge if need be and writes the verdict itself.
 */
async function startCheck(base: string, dev: number): Promise<void> {
  const scratch = `${base}.check`;
  await fs.mkdir(path.dirname(scratch), { recursive: true });
  // One check at a time: its folder is its claim. A second one started meanwhile (two nudge
  // commands in a row) would have the first one's `rm -rf` pull the folder from under it and
  // record "no" for good. A folder older than a minute is a check that was cut off: taken over.
  try {
    await fs.mkdir(scratch);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    if (Date.now() - (await fs.stat(scratch)).mtimeMs < CHECK_TAKEN_OVER_MS) return;
    await fs.rm(scratch, { recursive: true, force: true });
    await fs.mkdir(scratch);
  }
  if ((await fs.stat(scratch)).dev !== dev) {
    await fs.rm(scratch, { recursive: true, force: true }); // another file system: no verdict can be had here
    return;
  }
  const script = [
    'git init -q "$1" || exit 1',
    'cd "$1" || exit 1',
    "if git update-index --test-untracked-cache >/dev/null 2>&1; then r=ok; else r=no; fi",
    'printf "%s %s\\n" "$r" "$2" > "$3.tmp" && mv "$3.tmp" "$3"',
    'cd / && rm -rf "$1"',
  ].join("\n");
  const env = { ...process.env };
  for (const key of ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"]) delete env[key];
  spawn("sh", ["-c", script, "sh", scratch, String(dev), `${base}.verdict`], {
    detached: true,
    stdio: "ignore",
    env,
  }).unref();
}
