/**
 * Where the repository is: its work tree's top, the git dir shared by its worktrees and this
 * worktree's own. Apart from git.ts so that what only needs the location (a hook of claude's, which
 * claude waits on) loads no more of git than one process.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { discoverRepo } from "./git-discovery.js";

/** Each work tree's index file and info/exclude, when `repoLocation` has already asked (git.ts reads them). */
export const knownIndexPaths = new Map<string, Promise<string>>();
export const knownInfoExcludes = new Map<string, Promise<string>>();

/** The top of the work tree containing `cwd`, or a UserError when it is not in one. */
export async function repoRoot(cwd: string): Promise<string> {
  return (await repoLocation(cwd)).root;
}

export interface RepoLocation {
  root: string;
  commonDir: string;
  gitDir: string;
}

/**
 * The work tree's top, the git dir shared by all its worktrees (where nudge's store lives, so
 * sessions recorded in any worktree are found from all), and this worktree's own git dir, in one call.
 */
export async function repoLocation(cwd: string): Promise<RepoLocation> {
  // The index and info/exclude come along (a process each otherwise, for every rewind and capture).
  // Loaded when git is asked: a hook that finds its repository by itself starts no child process module.
  const { answer } = await import("./git-process.js");
  const out = await answer(cwd, [
    "rev-parse",
    "--path-format=absolute",
    "--show-toplevel",
    "--git-common-dir",
    "--git-dir",
    "--git-path",
    "index",
    "--git-path",
    "info/exclude",
  ]);
  const [root, commonDir, gitDir, index, exclude] = out?.split("\n") ?? [];
  if (!root || !commonDir || !gitDir) throw await whyNoWorkTree(cwd);
  if (index && !knownIndexPaths.has(root)) knownIndexPaths.set(root, Promise.resolve(path.resolve(root, index)));
  if (exclude && !knownInfoExcludes.has(root))
    knownInfoExcludes.set(root, Promise.resolve(path.resolve(root, exclude)));
  return { root, commonDir, gitDir };
}

/**
 * `repoLocation` without a git process where the repository's shape is plain (git-discovery.ts
 * says when): the index and info/exclude are then where git keeps them, this worktree's git dir
 * and the common one. A command's start ~3 ms of CPU lighter (node's spawn and git's own start).
 */
export async function fastRepoLocation(cwd: string): Promise<RepoLocation> {
  const found = discoverRepo(cwd);
  if (!found) return repoLocation(cwd);
  const { root, commonDir, gitDir } = found;
  // GIT_INDEX_FILE moves the index: git.ts asks git where it is.
  if (process.env.GIT_INDEX_FILE === undefined && !knownIndexPaths.has(root))
    knownIndexPaths.set(root, Promise.resolve(path.join(gitDir, "index")));
  if (!knownInfoExcludes.has(root))
    knownInfoExcludes.set(root, Promise.resolve(path.join(commonDir, "info", "exclude")));
  return found;
}

/** The error for a folder with no work tree above it: missing, a git folder or bare repository itself, or plain. */
async function whyNoWorkTree(cwd: string): Promise<UserError> {
  if (!(await fs.stat(cwd).catch(() => null))?.isDirectory())
    return new UserError(`no such folder: ${cwd}`, "check the path (--cwd takes the folder claude should work in)");
  const [insideGitDir, bare] =
    (
      await (await import("./git-process.js")).answer(cwd, ["rev-parse", "--is-inside-git-dir", "--is-bare-repository"])
    )?.split("\n") ?? [];
  if (insideGitDir === "true" || bare === "true") {
    return new UserError(
      `${cwd} is ${bare === "true" ? "a bare repository" : "inside a .git folder"}: there are no files to work on`,
      "run nudge in a work tree of the repository (git worktree add <path> makes one)",
    );
  }
  return new UserError(`not a git repository: ${cwd}`, "run nudge inside a git repository (git init creates one)");
}
