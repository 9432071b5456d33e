/**
 * `git.ignoreFiles` for a kept private index without a `git config` process each time: the
 * answer is noted beside the index with the stamps of every config file that can set
 * core.excludesFile and the environment that picks those files, and trusted while they are all
 * unchanged. A config with an include can read files not stamped here: never noted, asked each time.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { readCacheFile, writeCacheFile } from "../base/cache-file.js";
import * as z from "../base/zod.js";
import * as git from "./git.js";

export interface ConfigPlaces {
  /** The repository's git dir (its `config`) and the worktree's own (its `config.worktree`). */
  commonDir: string;
  gitDir: string;
  /** Where the answer is noted. */
  noteFile: string;
}

const NoteSchema = z.object({ key: z.string(), files: z.array(z.string()) });

/** Not kept in memory: a few stats, so a long-lived process (nudge web) sees a config change too. */
export async function keptIgnoreFiles(root: string, places: ConfigPlaces): Promise<string[]> {
  const configs = configFiles(places);
  // Taken before git is asked: a config changed meanwhile makes the note stale at once, never wrong.
  const key = keyOf(configs, places);
  const note = NoteSchema.safeParse(parseJson(readCacheFile(places.noteFile) ?? ""));
  if (note.success && note.data.key === key) return note.data.files;
  const files = await git.askIgnoreFiles(root);
  // Best effort: unwritten, the next process asks git again.
  if (!configs.some(hasInclude)) await writeCacheFile(places.noteFile, JSON.stringify({ key, files }) + "\n");
  return files;
}

/** Every file git reads its config from (system, global, repository, worktree), whether or not it exists. */
function configFiles(places: ConfigPlaces): string[] {
  const env = process.env;
  const home = env.HOME ?? "";
  const xdg = env.XDG_CONFIG_HOME || path.join(home, ".config");
  const system = env.GIT_CONFIG_NOSYSTEM ? [] : [env.GIT_CONFIG_SYSTEM || "/etc/gitconfig"];
  const global = env.GIT_CONFIG_GLOBAL
    ? [env.GIT_CONFIG_GLOBAL]
    : [path.join(xdg, "git", "config"), path.join(home, ".gitconfig")];
  return [...system, ...global, path.join(places.commonDir, "config"), path.join(places.gitDir, "config.worktree")];
}

/** The config files' stamps, the variables that choose them or add settings, and where the repository is. */
function keyOf(configs: string[], places: ConfigPlaces): string {
  const vars = Object.keys(process.env)
    .filter((name) => name.startsWith("GIT_CONFIG") || name === "HOME" || name === "XDG_CONFIG_HOME")
    .sort()
    .map((name) => [name, process.env[name]]);
  const stamps = configs.map((file) => {
    const s = statSync(file, { bigint: true, throwIfNoEntry: false });
    return [file, s ? `${s.ino} ${s.size} ${s.mtimeNs} ${s.ctimeNs}` : null];
  });
  return JSON.stringify({ vars, stamps, gitDir: places.gitDir, commonDir: places.commonDir });
}

function hasInclude(file: string): boolean {
  try {
    return /^\s*\[\s*include/im.test(readFileSync(file, "utf8"));
  } catch {
    return false; // no such file
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
