/**
 * git's discovery of the repository around a folder (setup.c's), done in this process for the usual
 * shapes — a `.git` folder, or a worktree's `.git` file, in the folder or above it — so that a hook
 * claude waits on starts no git. Whatever git could decide otherwise returns null, and git is asked:
 * a variable that steers it (GIT_DIR, ceilings, …), a git folder or bare repository on the way up,
 * another file system, a path owned by someone else (safe.directory), a config that moves the work
 * tree or includes another, a `.git` file that does not point at a repository.
 */
import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync, type Stats } from "node:fs";
import path from "node:path";
import type { RepoLocation } from "./repo-location.js";

/** Variables that change where git looks or what it finds. */
const STEERING = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_CONFIG",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
];

/** Where the repository of `cwd` is, as `git rev-parse --show-toplevel --git-common-dir --git-dir` says; null: ask git. */
export function discoverRepo(cwd: string, env: NodeJS.ProcessEnv = process.env): RepoLocation | null {
  if (STEERING.some((name) => env[name] !== undefined)) return null;
  try {
    return discover(cwd);
  } catch {
    return null; // a path that vanished or cannot be read: git says what it is
  }
}

function discover(cwd: string): RepoLocation | null {
  const uid = process.geteuid?.();
  if (uid === undefined) return null;
  // git walks up from getcwd(): the physical path.
  let dir = realpathSync.native(cwd);
  const device = statSync(dir).dev;
  for (;;) {
    const here = statSync(dir);
    // One file system only, as git by default.
    if (here.dev !== device) return null;
    const dotGit = path.join(dir, ".git");
    if (lstatOrNull(dotGit)) {
      const found = statOrNull(dotGit);
      return found?.isFile() || found?.isDirectory() ? located(dir, here, dotGit, found, uid) : null;
    }
    if (isGitDir(dir)) return null; // a bare repository, or cwd inside a git folder
    const parent = path.dirname(dir);
    if (parent === dir) return null; // not a repository: git's message says so
    dir = parent;
  }
}

function located(top: string, topStat: Stats, dotGit: string, found: Stats, uid: number): RepoLocation | null {
  let gitDir = dotGit;
  if (found.isFile()) {
    // A linked worktree's (or a submodule's) `gitdir: <path>`, relative to the file's folder; anything longer is git's to judge.
    if (found.size > 4096) return null;
    const content = readFileSync(dotGit, "utf8").replace(/[\r\n]+$/, "");
    if (!content.startsWith("gitdir: ")) return null;
    gitDir = path.resolve(top, content.slice("gitdir: ".length));
    if (lstatSync(dotGit).uid !== uid) return null;
  }
  if (!isGitDir(gitDir)) return null;
  const commonDir = commonDirOf(gitDir);
  if (topStat.uid !== uid || lstatSync(gitDir).uid !== uid) return null;
  if (!plainConfig(path.join(commonDir, "config"))) return null;
  return { root: top, commonDir: realpathSync.native(commonDir), gitDir: realpathSync.native(gitDir) };
}

/** git's is_git_directory: a valid HEAD here, objects and refs in the common dir. */
function isGitDir(dir: string): boolean {
  if (!validHead(path.join(dir, "HEAD"))) return false;
  let common: string;
  try {
    common = commonDirOf(dir);
  } catch {
    return false;
  }
  return isDirectory(path.join(common, "objects")) && isDirectory(path.join(common, "refs"));
}

function validHead(file: string): boolean {
  const stat = lstatOrNull(file);
  if (!stat) return false;
  // A symbolic link to a branch (old git), or a file naming one or holding a commit id.
  if (stat.isSymbolicLink()) return /^refs\//.test(readlinkOr(file));
  if (!stat.isFile() || stat.size > 4096) return false;
  return /^(ref:\s*refs\/|[0-9a-f]{40}(?:[0-9a-f]{24})?\s*$)/.test(readFileSync(file, "utf8"));
}

/** The git dir shared by the worktrees: named by a `commondir` file, else the git dir itself. */
function commonDirOf(gitDir: string): string {
  let named: string;
  try {
    named = readFileSync(path.join(gitDir, "commondir"), "utf8").replace(/[\r\n]+$/, "");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return gitDir;
    throw error;
  }
  return path.resolve(gitDir, named);
}

/**
 * No setting that moves the work tree or makes the repository bare (core.worktree, core.bare,
 * per-worktree config), and no include that could bring one: git's answer is the folder of `.git`.
 */
function plainConfig(file: string): boolean {
  if ((statOrNull(file)?.size ?? Infinity) > 1024 * 1024) return false;
  const text = readFileSync(file, "utf8");
  if (/^\s*\[\s*include/im.test(text) || /^\s*worktree(config)?\s*(=|$|[#;])/im.test(text)) return false;
  for (const match of text.matchAll(/^\s*bare\b(.*)$/gim)) {
    if (!/^\s*=\s*"?(false|no|off|0)"?\s*([#;].*)?$/i.test(match[1]!)) return false;
  }
  return true;
}

function statOrNull(file: string): Stats | null {
  return statSync(file, { throwIfNoEntry: false }) ?? null;
}

function lstatOrNull(file: string): Stats | null {
  return lstatSync(file, { throwIfNoEntry: false }) ?? null;
}

function isDirectory(file: string): boolean {
  return statOrNull(file)?.isDirectory() ?? false;
}

function readlinkOr(file: string): string {
  try {
    return readlinkSync(file);
  } catch {
    return "";
  }
}
