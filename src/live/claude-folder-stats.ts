/**
 * The one cost of listing claude's own sessions that no cache removes: a stat per transcript
 * (claude appends to an old transcript when a session is resumed, which changes neither the
 * folder's mtime nor anything else a cheaper look would see). Done here, and started early by a
 * listing: while git tells it where the repository is, the folders of the repository that a walk
 * up to `.git` suggests are stat'ed (a guess: what it missed is stat'ed later, what it took in
 * vain costs only time). Links are not followed; claude's folder is only read.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { encodeProjectDir } from "../claude/transcript.js";

/** One folder's transcripts (regular files named *.jsonl) as lstat saw them, and how many vanished meanwhile. */
export interface FolderStats {
  names: string[];
  sizes: number[];
  mtimes: number[];
  unreadable: number;
}

export async function statFolder(dir: string): Promise<FolderStats> {
  const out: FolderStats = { names: [], sizes: [], mtimes: [], unreadable: 0 };
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.endsWith(".jsonl")) continue;
    // Synchronous: 2,000 stats cost less this way than as 2,000 promises. A link (or a folder) is
    // no transcript: not followed, not counted.
    let s;
    try {
      s = lstatSync(`${dir}${path.sep}${name}`);
    } catch {
      out.unreadable++;
      continue;
    }
    if (!s.isFile()) continue;
    out.names.push(name);
    out.sizes.push(s.size);
    out.mtimes.push(s.mtimeMs);
  }
  return out;
}

/** Stats of folders taken early, by folder name. */
export type EarlyStats = Map<string, Promise<FolderStats>>;

/**
 * The stats of the folders under `<config>/projects/` that hold the sessions of the repository
 * `cwd` seems to be in (found by walking up to its `.git`, as git would, without git), begun now.
 * Never fails: a wrong guess is an empty or useless map.
 */
export async function earlyFolderStats(configDir: string, cwd: string, env = process.env): Promise<EarlyStats> {
  const early: EarlyStats = new Map();
  // git is told where the repository is: no guess.
  if (env.GIT_DIR || env.GIT_WORK_TREE || env.GIT_COMMON_DIR) return early;
  try {
    const roots = guessWorkTrees(cwd);
    if (roots.length === 0) return early;
    const prefixes = roots.map(encodeProjectDir);
    const root = path.join(configDir, "projects");
    for (const folder of await readdir(root)) {
      // A subfolder's sessions are in "<root's name>-<rest>"; a near name ("-a-b2" for "/a/b") costs a look in vain.
      if (prefixes.some((p) => folder === p || folder.startsWith(p + "-"))) {
        const stats = statFolder(path.join(root, folder));
        early.set(folder, stats);
        await stats;
      }
    }
  } catch {
    // no claude folder, or an odd repository: the listing stats what it needs itself
  }
  return early;
}

/** The work trees of the repository around `cwd` as its `.git` and `worktrees/*\/gitdir` files tell. */
function guessWorkTrees(cwd: string): string[] {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, ".git");
    if (existsSync(dotGit)) {
      let common = dotGit;
      if (!statSync(dotGit).isDirectory()) {
        // A linked worktree: "gitdir: <its git dir>", whose "commondir" names the repository's.
        const gitDir = path.resolve(dir, /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim() ?? "");
        common = path.resolve(gitDir, readFileSync(path.join(gitDir, "commondir"), "utf8").trim());
      }
      const roots = new Set([dir]);
      if (path.basename(common) === ".git") roots.add(path.dirname(common));
      const worktrees = path.join(common, "worktrees");
      for (const name of existsSync(worktrees) ? readdirSync(worktrees) : []) {
        const gitdir = path.join(worktrees, name, "gitdir");
        if (existsSync(gitdir)) roots.add(path.dirname(readFileSync(gitdir, "utf8").trim()));
      }
      return [...roots];
    }
    if (path.dirname(dir) === dir) return [];
  }
}
