/**
 * Running git: one process per call, stdout kept byte for byte, a private index passed per call
 * (GIT_INDEX_FILE), the user's hooks skipped for nudge's own bookkeeping, and git's failures
 * turned into a UserError where they are the user's to fix. Every git call nudge makes goes
 * through here (git.ts and its siblings name the operations).
 *
 * Why node's own spawn and not simple-git: snapshots need byte-exact stdout (a `--binary` patch
 * of a latin-1 file is not valid UTF-8), a per-call GIT_INDEX_FILE so the user's index is never
 * touched, and stdin for `update-ref --stdin`. simple-git decodes output as strings and has no
 * stdin. Not execa either: a snapshot is four git processes in a row, and execa adds about 1 ms
 * to each (measured: 4.0 against 2.9 ms for `git --version`), a fifth of a snapshot's cost in
 * a small repository.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { UserError, InternalError } from "../base/errors.js";

/** As the expected old value of a ref (update-ref): "must not exist yet", whatever the hash. */
export const NO_REF = "";

/** Who nudge's own snapshot commits are by; fixed so snapshots never depend on user config. */
export const SNAPSHOT_IDENTITY = {
  GIT_AUTHOR_NAME: "nudge",
  GIT_AUTHOR_EMAIL: "nudge@localhost",
  GIT_COMMITTER_NAME: "nudge",
  GIT_COMMITTER_EMAIL: "nudge@localhost",
};

export interface GitOptions {
  /** A private index file: every command that reads or writes "the index" uses it instead of the user's. */
  indexFile?: string;
  input?: string | Buffer;
  env?: Record<string, string>;
  /** A failure that is not one: return normally when this says so. */
  tolerate?: (exitCode: number, stderr: string) => boolean;
  /** A failure that is the user's to fix: the error to report instead of a bug (none: a bug). */
  explain?: (stderr: string) => UserError | undefined;
  /** nudge's own bookkeeping (its refs, its private index): the user's hooks are not run. */
  internal?: boolean;
}

/**
 * The user's hooks are for the user's git operations. nudge's own (a private index written
 * twice a turn, a ref per snapshot) would otherwise run post-index-change and
 * reference-transaction hooks the user never asked for, each turn.
 */
export const NO_HOOKS = ["-c", "core.hooksPath=/dev/null"];

/**
 * Settings that make git run a program of the repository's choosing on a plain status or add:
 * off for every git nudge runs, whatever config git finds.
 */
const NO_PROGRAMS = ["-c", "core.fsmonitor=false"];

let pinned: { workTree: string; gitDirs: string[]; env: Record<string, string> } | null = null;

/**
 * From now on, git run in this work tree (or below it) uses this git dir, not one it finds on its
 * own: a sandboxed claude may write a `.git` file or folder into the work tree (a linked worktree's
 * gitfile, a `git init` in a subfolder) that would send nudge's git to a config of its making.
 * Git run in the git dir or the common dir (nudge's store: its bare and scratch repositories) is
 * left to find its own.
 */
export function pinRepository(workTree: string, gitDir: string, commonDir = gitDir): void {
  const top = path.resolve(workTree);
  pinned = {
    workTree: top,
    gitDirs: [path.resolve(gitDir), path.resolve(commonDir)],
    env: { GIT_DIR: path.resolve(gitDir), GIT_WORK_TREE: top },
  };
}

/** GIT_DIR and GIT_WORK_TREE for git run in `cwd`, when cwd is in the pinned work tree (and not in its git dirs). */
function pinnedEnv(cwd: string): Record<string, string> {
  if (!pinned) return {};
  const at = path.resolve(cwd);
  return within(pinned.workTree, at) && !pinned.gitDirs.some((dir) => within(dir, at)) ? pinned.env : {};
}

function within(dir: string, at: string): boolean {
  const rel = path.relative(dir, at);
  return rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * The arguments and environment of every git process nudge starts (through spawnGit, or spawned
 * by hand to stream): no fsmonitor program, the user's hooks off for nudge's own bookkeeping
 * (`internal`), no optional locks (a read must not refresh and rewrite the user's index), the
 * pinned repository in its work tree. `unset`: variables of nudge's own environment git must not see.
 */
export function gitChildOptions(
  cwd: string,
  args: string[],
  o: { internal?: boolean; env?: Record<string, string>; unset?: string[] } = {},
): { args: string[]; env: NodeJS.ProcessEnv } {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of o.unset ?? []) delete env[name];
  return {
    args: [...NO_PROGRAMS, ...(o.internal ? NO_HOOKS : []), ...args],
    env: Object.assign(env, { GIT_OPTIONAL_LOCKS: "0" }, pinnedEnv(cwd), o.env),
  };
}

export interface GitResult {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

/**
 * While set, git runs in a process group of its own: a terminal's Ctrl-C reaches nudge, which
 * decides, and not a git halfway through writing a file of the user's (killed there, it leaves the
 * file cut short: neither as before nor as after).
 */
let shielded = 0;

export async function shieldedFromCtrlC<T>(work: () => Promise<T>): Promise<T> {
  shielded++;
  try {
    return await work();
  } finally {
    shielded--;
  }
}

/**
 * One git process: its exit code and its output, stdout byte for byte. `unset` and `internal` as
 * for gitChildOptions; `timeoutMs`: stopped (SIGKILL) after that long.
 */
export function spawnGit(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
  input?: string | Buffer,
  more: { unset?: string[]; timeoutMs?: number; internal?: boolean } = {},
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const c = gitChildOptions(cwd, args, { env, unset: more.unset, internal: more.internal });
    const child = spawn("git", c.args, {
      cwd,
      env: c.env,
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: shielded > 0,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = more.timeoutMs ? setTimeout(() => ((timedOut = true), child.kill("SIGKILL")), more.timeoutMs) : null;
    child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (timer) clearTimeout(timer);
      // ENOENT is either: no git, or no folder to run it in (a worktree since removed).
      if (error.code !== "ENOENT") reject(error);
      else if (!existsSync(cwd))
        reject(
          new UserError(
            `the folder ${cwd} no longer exists`,
            "it was moved or removed; a session recorded there can be forked: nudge session fork <id> --worktree <path>",
          ),
        );
      else reject(new UserError("git is not installed (or not on PATH)", "install git, then run nudge again"));
    });
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      const text = Buffer.concat(stderr).toString("utf8").trim();
      const why = timedOut ? `timed out after ${more.timeoutMs! / 1000} s. ` : signal ? `killed by ${signal}. ` : "";
      resolve({ exitCode: code ?? -1, stdout: Buffer.concat(stdout), stderr: why + text });
    });
    if (child.stdin) {
      // git may exit before reading everything (on an error it reports itself): not our failure.
      child.stdin.on("error", () => undefined);
      child.stdin.end(input);
    }
  });
}

export async function run(cwd: string, args: string[], options: GitOptions = {}): Promise<Buffer> {
  const env: Record<string, string> = { ...options.env };
  if (options.indexFile) env.GIT_INDEX_FILE = options.indexFile;
  const internal = options.internal ?? options.indexFile !== undefined;
  // On a private index (split, as nudge keeps them): nothing nudge runs ever expires a shared
  // index file, the user's or another private index's (they are named by content, so shared).
  const prefix = options.indexFile ? ["-c", "splitIndex.sharedIndexExpire=never"] : [];
  const result = await spawnGit(cwd, [...prefix, ...args], env, options.input, { internal });
  if (result.exitCode !== 0) {
    if (options.tolerate?.(result.exitCode, result.stderr)) return result.stdout;
    const known = options.explain?.(result.stderr) ?? lockedByAnotherGit(result.stderr) ?? cannotWrite(result.stderr);
    if (known) throw known;
    throw new InternalError(`git ${subcommand(args)} failed (exit ${result.exitCode}): ${result.stderr}`);
  }
  return result.stdout;
}

/** The git command in an argument list that may start with `-c name=value` pairs. */
function subcommand(args: string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "-c") i++;
    else return args[i]!;
  }
  return "";
}

/** Any git command may find a lock another git holds: the user's to wait for, not a bug. */
function lockedByAnotherGit(stderr: string): UserError | undefined {
  const lock = /Unable to create '(.+\.lock)': File exists/.exec(stderr)?.[1];
  if (!lock) return undefined;
  return new UserError(
    `another git process is working in this repository (${lock} exists)`,
    "wait for it to finish; if no git is running, remove that file and run the command again",
  );
}

/**
 * A repository git cannot write to (permissions, a read-only disk, a file where git keeps a folder
 * of refs) is the user's to fix, not a bug: said with git's own line.
 */
function cannotWrite(stderr: string): UserError | undefined {
  const line = stderr
    .split("\n")
    .find((l) =>
      /insufficient permission|unable to (create|write|open|append)\b.*(Permission denied|Read-only file system)|non-directory in the way|unable to create directory/i.test(
        l,
      ),
    );
  if (!line) return undefined;
  return new UserError(
    `git cannot write here: ${line.replace(/^(fatal|error): /, "").trim()}`,
    "check that the repository and its .git folder can be written (permissions, a read-only disk, a file where git keeps a folder), then run the command again",
  );
}

/** A question git answers with its exit code: the trimmed output, or null when git says no. */
export async function answer(cwd: string, args: string[]): Promise<string | null> {
  const result = await spawnGit(cwd, args);
  const out = result.stdout.toString("utf8").trim();
  return result.exitCode === 0 && out ? out : null;
}

export async function text(cwd: string, args: string[], options?: GitOptions): Promise<string> {
  return (await run(cwd, args, options)).toString("utf8").trim();
}

/** Pathspecs that leave out folders given relative to the top (nudge's and claude's own files). */
export function excluding(paths: string[]): string[] {
  return paths.map((p) => `:(top,exclude)${p}`);
}
