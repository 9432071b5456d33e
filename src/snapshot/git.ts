/**
 * Every git call nudge makes lives here: one small function per operation, explicit cwd,
 * arguments as arrays.
 *
 * Why node's own spawn and not simple-git: snapshots need byte-exact stdout (a `--binary` patch
 * of a latin-1 file is not valid UTF-8), a per-call GIT_INDEX_FILE so the user's index is never
 * touched, and stdin for `update-ref --stdin`. simple-git decodes output as strings and has no
 * stdin. Not execa either: a snapshot is four git processes in a row, and execa adds about 1 ms
 * to each (measured: 4.0 against 2.9 ms for `git --version`), a fifth of a snapshot's cost in
 * a small repository.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UserError, InternalError } from "../errors.js";
import { hasControls, inertJson } from "../inert-text.js";

/** As the expected old value of a ref (update-ref): "must not exist yet", whatever the hash. */
export const NO_REF = "";

/** Who nudge's own snapshot commits are by; fixed so snapshots never depend on user config. */
const SNAPSHOT_IDENTITY = {
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
const NO_HOOKS = ["-c", "core.hooksPath=/dev/null"];

interface GitResult {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

/** One git process: its exit code and its output, stdout byte for byte. */
function spawnGit(cwd: string, args: string[], env: Record<string, string> = {}, input?: string | Buffer): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, env: { ...process.env, ...env }, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) => {
      // ENOENT is either: no git, or no folder to run it in (a worktree since removed).
      if (error.code !== "ENOENT") reject(error);
      else if (!existsSync(cwd)) reject(new UserError(`the folder ${cwd} no longer exists`, "it was moved or removed; a session recorded there can be forked: nudge session fork <id> --worktree <path>"));
      else reject(new UserError("git is not installed (or not on PATH)", "install git, then run nudge again"));
    });
    child.on("close", (code, signal) => {
      const text = Buffer.concat(stderr).toString("utf8").trim();
      resolve({ exitCode: code ?? -1, stdout: Buffer.concat(stdout), stderr: signal ? `killed by ${signal}. ${text}` : text });
    });
    if (child.stdin) {
      // git may exit before reading everything (on an error it reports itself): not our failure.
      child.stdin.on("error", () => undefined);
      child.stdin.end(input);
    }
  });
}

async function run(cwd: string, args: string[], options: GitOptions = {}): Promise<Buffer> {
  const env: Record<string, string> = {
    // Read-only commands must not refresh (and so lock and rewrite) the user's index behind their back.
    GIT_OPTIONAL_LOCKS: "0",
    ...options.env,
  };
  if (options.indexFile) env.GIT_INDEX_FILE = options.indexFile;
  const internal = options.internal ?? options.indexFile !== undefined;
  // On a private index (split, as nudge keeps them): nothing nudge runs ever expires a shared
  // index file, the user's or another private index's (they are named by content, so shared).
  const prefix = [...(internal ? NO_HOOKS : []), ...(options.indexFile ? ["-c", "splitIndex.sharedIndexExpire=never"] : [])];
  const result = await spawnGit(cwd, [...prefix, ...args], env, options.input);
  if (result.exitCode !== 0) {
    if (options.tolerate?.(result.exitCode, result.stderr)) return result.stdout;
    const known = options.explain?.(result.stderr) ?? lockedByAnotherGit(result.stderr);
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
  return new UserError(`another git process is working in this repository (${lock} exists)`, "wait for it to finish; if no git is running, remove that file and run the command again");
}

/** A question git answers with its exit code: the trimmed output, or null when git says no. */
async function answer(cwd: string, args: string[]): Promise<string | null> {
  const result = await spawnGit(cwd, args);
  const out = result.stdout.toString("utf8").trim();
  return result.exitCode === 0 && out ? out : null;
}

async function text(cwd: string, args: string[], options?: GitOptions): Promise<string> {
  return (await run(cwd, args, options)).toString("utf8").trim();
}

/** Pathspecs that leave out folders given relative to the top (nudge's and claude's own files). */
function excluding(paths: string[]): string[] {
  return paths.map((p) => `:(top,exclude)${p}`);
}

/** The top of the work tree containing `cwd`, or a UserError when it is not in one. */
export async function repoRoot(cwd: string): Promise<string> {
  return (await repoLocation(cwd)).root;
}

/**
 * The work tree's top, the git dir shared by all its worktrees (where nudge's store lives, so
 * sessions recorded in any worktree are found from all), and this worktree's own git dir, in one call.
 */
export async function repoLocation(cwd: string): Promise<{ root: string; commonDir: string; gitDir: string }> {
  const out = await answer(cwd, ["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir", "--git-dir"]);
  const [root, commonDir, gitDir] = out?.split("\n") ?? [];
  if (!root || !commonDir || !gitDir) throw await whyNoWorkTree(cwd);
  return { root, commonDir, gitDir };
}

/** The error for a folder with no work tree above it: missing, a git folder or bare repository itself, or plain. */
async function whyNoWorkTree(cwd: string): Promise<UserError> {
  if (!(await fs.stat(cwd).catch(() => null))?.isDirectory()) return new UserError(`no such folder: ${cwd}`, "check the path (--cwd takes the folder claude should work in)");
  const [insideGitDir, bare] = (await answer(cwd, ["rev-parse", "--is-inside-git-dir", "--is-bare-repository"]))?.split("\n") ?? [];
  if (insideGitDir === "true" || bare === "true") {
    return new UserError(`${cwd} is ${bare === "true" ? "a bare repository" : "inside a .git folder"}: there are no files to work on`, "run nudge in a work tree of the repository (git worktree add <path> makes one)");
  }
  return new UserError(`not a git repository: ${cwd}`, "run nudge inside a git repository (git init creates one)");
}

const indexPaths = new Map<string, Promise<string>>();

/**
 * The user's own index file for this worktree (read to seed a private copy each turn). Asked of
 * git once per work tree: it cannot change while nudge runs, and each turn saves the process.
 */
export function indexPath(root: string): Promise<string> {
  let known = indexPaths.get(root);
  if (!known) {
    known = text(root, ["rev-parse", "--git-path", "index"]).then((p) => path.resolve(root, p));
    known.catch(() => indexPaths.delete(root));
    indexPaths.set(root, known);
  }
  return known;
}

const ignoreSources = new Map<string, Promise<string[]>>();

/**
 * The ignore files outside the work tree that decide what `git add -A` leaves out: the
 * repository's info/exclude and the user's core.excludesFile (default ~/.config/git/ignore).
 */
export function ignoreFiles(root: string): Promise<string[]> {
  let known = ignoreSources.get(root);
  if (!known) {
    known = Promise.all([
      text(root, ["rev-parse", "--git-path", "info/exclude"]).then((p) => path.resolve(root, p)),
      answer(root, ["config", "--path", "core.excludesFile"]),
    ]).then(([exclude, configured]) => {
      const xdg = process.env.XDG_CONFIG_HOME || path.join(process.env.HOME ?? "", ".config");
      return [exclude, configured ? path.resolve(root, configured) : path.join(xdg, "git", "ignore")];
    });
    known.catch(() => ignoreSources.delete(root));
    ignoreSources.set(root, known);
  }
  return known;
}

/** Whether git ignores a path of the work tree (any .gitignore, info/exclude, core.excludesFile). */
export async function isIgnored(root: string, rel: string): Promise<boolean> {
  // check-ignore exits 1 for a path nothing ignores; --no-index: a tracked file is judged by the rules too.
  const out = await text(root, ["check-ignore", "--no-index", "-z", "--stdin"], { input: `${rel}\0`, tolerate: (code) => code === 1 });
  return out !== "";
}

/** HEAD's commit, or null on an unborn branch. */
export async function headCommit(root: string): Promise<string | null> {
  return answer(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
}

/**
 * Where HEAD has pointed, newest first, each with the time it moved there (epoch seconds), from
 * HEAD's reflog: what `session repair` finds a turn's HEAD in. Empty with no reflog (an unborn
 * branch, core.logAllRefUpdates off, entries expired).
 */
export async function headMoves(root: string): Promise<Array<{ commit: string; time: number }>> {
  // --date=unix makes %gd the move's time ("HEAD@{1732512345}"), not its position ("HEAD@{3}").
  const result = await spawnGit(root, ["log", "--walk-reflogs", "--date=unix", "--format=%H %gd", "HEAD"]);
  if (result.exitCode !== 0) return [];
  return [...result.stdout.toString("utf8").matchAll(/^([0-9a-f]{40,64}) \S*@\{(\d+)\}$/gm)].map((m) => ({ commit: m[1]!, time: Number(m[2]) }));
}

/** The commit a ref points at, or null when there is no such ref. */
export async function refCommit(root: string, ref: string): Promise<string | null> {
  return answer(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
}

/** The checked-out branch name, or null when HEAD is detached. */
export async function currentBranch(root: string): Promise<string | null> {
  return answer(root, ["symbolic-ref", "--quiet", "--short", "HEAD"]);
}

/** The empty tree's id in this repository's hash (what an unborn branch's "base" is). */
export async function emptyTree(root: string): Promise<string> {
  return text(root, ["hash-object", "-t", "tree", "--stdin"], { input: "" });
}

/** Whether the object is in the repository (a snapshot's objects can be pruned once its refs are gone). */
export async function objectExists(root: string, id: string): Promise<boolean> {
  return (await spawnGit(root, ["cat-file", "-e", id])).exitCode === 0;
}

/** Is `ancestor` an ancestor of (or the same as) `commit`? */
export async function isAncestor(root: string, ancestor: string, commit: string): Promise<boolean> {
  return (await spawnGit(root, ["merge-base", "--is-ancestor", ancestor, commit])).exitCode === 0;
}

/** The tree of a commit. */
export async function treeOf(root: string, commit: string): Promise<string> {
  return text(root, ["rev-parse", `${commit}^{tree}`]);
}

/**
 * Stage the whole work tree into a private index and write it as a tree: tracked, modified,
 * deleted and untracked files, modes and symlinks; .gitignore'd files are skipped as git does.
 * The index starts as a copy of the user's (seedPrivateIndex), whose stat cache spares hashing
 * unchanged files, so this costs about what `git status` costs.
 *
 * Also names the files git could not read. --ignore-errors stages everything else but still
 * exits 1; one unreadable file (left by docker, chmod 000) must not cost the turn, so that exit
 * is accepted when unreadable files are all git complains about.
 */
export async function stageAll(root: string, indexFile: string, exclude: string[] = []): Promise<{ tree: string; unreadable: string[] }> {
  const unreadable: string[] = [];
  await run(root, ["add", "-A", "--ignore-errors", "--", ":/", ...excluding(exclude)], {
    indexFile,
    tolerate: (code, stderr) => {
      const lines = stderr.split("\n").filter((l) => l.trim() !== "");
      if (code !== 1 || lines.length === 0) return false;
      for (const line of lines) {
        const skipped = /^error: unable to index file '(.*)'$/.exec(line);
        if (skipped) unreadable.push(skipped[1]!);
        else if (!/^(error: open\(|error: read error|warning: )/.test(line)) return false;
      }
      return unreadable.length > 0;
    },
  });
  return { tree: await text(root, ["write-tree"], { indexFile }), unreadable };
}

/**
 * Settings for nudge's own private indexes, never the user's:
 * - the untracked cache, built for `-uall`, spares the walk of every folder at each scan (it is
 *   only turned on where `git update-index --test-untracked-cache` passed for the work tree);
 * - the split index writes only what changed at each update instead of the whole index;
 * - no fsmonitor: its token in a private copy of the index would not be the user's daemon's.
 */
function privateIndexConfig(untrackedCache: boolean): string[] {
  return [
    "-c", `core.untrackedCache=${untrackedCache}`,
    "-c", "status.showUntrackedFiles=all",
    "-c", "core.splitIndex=true",
    // The split part holds every entry changed since the shared index was last written; git's default
    // (20%) lets it grow for ~1,000 turns of a long session, each read and write slower than the last.
    "-c", "splitIndex.maxPercentChange=5",
    "-c", "core.fsmonitor=false",
  ];
}

/**
 * The paths where the work tree differs from a private index: modified, deleted, type-changed,
 * unmerged, untracked (not ignored). One scan, as `git status`. No pathspec unless folders must
 * be left out: any pathspec makes git skip the untracked cache. git may write the refreshed stat
 * data and the untracked cache back into the private index (that is what makes the next scan cheap).
 */
export async function changedSinceIndex(root: string, indexFile: string, o: { untrackedCache: boolean; exclude: string[] }): Promise<{ paths: string[]; head: string | null }> {
  const pathspec = o.exclude.length ? ["--", ":/", ...excluding(o.exclude)] : [];
  // --branch: HEAD comes with the scan ("# branch.oid"), sparing a process of its own.
  const out = await run(
    root,
    [...privateIndexConfig(o.untrackedCache), "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=dirty", ...pathspec],
    { indexFile, env: { GIT_OPTIONAL_LOCKS: "1" } },
  );
  return parseStatusV2(out.toString("latin1"));
}

/**
 * `status --porcelain=v2 --branch -z`: HEAD's commit (null on an unborn branch), and the paths
 * whose work tree side differs (the index-vs-HEAD side is not ours to care about).
 */
export function parseStatusV2(out: string): { paths: string[]; head: string | null } {
  const paths: string[] = [];
  let head: string | null = null;
  const fields = out.split("\0");
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    if (entry.startsWith("# branch.oid ")) {
      const oid = entry.slice("# branch.oid ".length);
      // A copy of its own: a slice would keep the whole output alive as long as the turn that records HEAD
      // (measured: ~50 KB a turn at 1k files, the heap growing with the session and every spawn slowing).
      head = /^[0-9a-f]{40,64}$/.test(oid) ? Buffer.from(oid, "latin1").toString("latin1") : null; // "(initial)" on an unborn branch
    } else if (entry.startsWith("? ")) paths.push(entry.slice(2));
    else if (entry.startsWith("1 ") || entry.startsWith("2 ") || entry.startsWith("u ")) {
      // "1 XY sub mH mI mW hH hI path", "2 XY sub mH mI mW hH hI Xscore path" + orig path, "u XY sub m1 m2 m3 mW h1 h2 h3 path".
      const skip = entry[0] === "1" ? 8 : entry[0] === "2" ? 9 : 10;
      let at = 0;
      for (let k = 0; k < skip; k++) at = entry.indexOf(" ", at) + 1;
      const worktreeSide = entry[3];
      if (entry[0] === "u" || worktreeSide !== ".") paths.push(entry.slice(at));
      if (entry[0] === "2") i++; // the original path follows as its own field
    }
  }
  return { paths, head };
}

/**
 * Stage exactly these paths into a private index as they are on disk: new ones added, gone ones
 * removed, a file that became a folder (or the reverse) replaced.
 */
export async function stagePaths(root: string, indexFile: string, paths: string[], untrackedCache: boolean): Promise<void> {
  if (paths.length === 0) return;
  await run(root, [...privateIndexConfig(untrackedCache), "update-index", "--add", "--remove", "--replace", "-z", "--stdin"], {
    indexFile,
    input: Buffer.from(paths.join("\0") + "\0", "latin1"),
  });
}

/** The private index as a tree (cheap where the index's cached trees are still valid). */
export async function writeTree(root: string, indexFile: string, untrackedCache: boolean): Promise<string> {
  return text(root, [...privateIndexConfig(untrackedCache), "write-tree"], { indexFile });
}

/**
 * Whether the untracked cache can be trusted on this work tree's file system (folder mtimes
 * change when entries are added or removed). git's own test; it takes several seconds.
 */
export async function untrackedCacheWorks(root: string): Promise<boolean> {
  return (await spawnGit(root, ["update-index", "--test-untracked-cache"])).exitCode === 0;
}

export async function commitTree(root: string, tree: string, parents: string[], message: string): Promise<string> {
  const parentArgs = parents.flatMap((p) => ["-p", p]);
  // --no-gpg-sign: commit.gpgSign in the user's config would otherwise prompt for a key per turn.
  // The message (it holds the prompt) goes on stdin: no argv limits, and git refuses NUL bytes in it.
  return text(root, ["commit-tree", "--no-gpg-sign", ...parentArgs, "-F", "-", tree], {
    env: SNAPSHOT_IDENTITY,
    input: message.replaceAll("\0", "\\0"),
  });
}

/** Delete refs (nudge's own), in one transaction. */
export async function deleteRefs(root: string, refs: string[]): Promise<void> {
  if (refs.length === 0) return;
  await run(root, ["update-ref", "--stdin"], { input: refs.map((r) => `delete ${r}\n`).join(""), internal: true });
}

/** Point refs at commits in one transaction (all or none). */
export async function updateRefs(root: string, updates: Array<{ ref: string; commit: string }>): Promise<void> {
  const input = updates.map((u) => `update ${u.ref} ${u.commit}\n`).join("");
  await run(root, ["update-ref", "--stdin"], { input, internal: true });
}

/**
 * The patch from tree `a` to tree `b`, byte for byte, such that `git apply` reproduces `b` in a
 * repository that has b's objects. Plumbing diff-tree ignores diff.external/textconv/color config
 * that porcelain `git diff` honours; -M records renames as renames. No --binary: a binary file is
 * named by its full object ids (--full-index), which `git apply` resolves from the repository.
 */
export async function diffTrees(root: string, a: string, b: string): Promise<Buffer> {
  return run(root, ["diff-tree", "-r", "-p", "--full-index", "-M", "--no-color", a, b]);
}

/**
 * The patch from tree `a` to tree `b` for a person to read. Unlike `diffTrees`, no --binary: a
 * binary file is one "Binary files … differ" line instead of pages of base85. -M as in `diffTrees`,
 * so renames pair up the same way as in the stored patches.
 */
export async function readablePatch(root: string, a: string, b: string): Promise<Buffer> {
  return run(root, ["diff-tree", "-r", "-p", "-M", "--no-color", a, b]);
}

export interface TreeDiffEntry {
  /** A added, D deleted, M modified (content or mode), T type changed (file ↔ symlink), R renamed. */
  status: "A" | "D" | "M" | "T" | "R";
  path: string;
  /** The path before a rename. */
  oldPath?: string;
  /** Modes and blob ids; "000000" and all zeros on the side where the file does not exist. */
  oldMode: string;
  newMode: string;
  oldBlob: string;
  newBlob: string;
}

/** The files that differ between two trees, one entry per file, in the order `readablePatch` shows them. */
export async function diffEntries(
  root: string,
  a: string,
  b: string,
  renames = true,
  /** "latin1" keeps every path byte as one character (byte-exact paths, for writing files). */
  encoding: "utf8" | "latin1" = "utf8",
): Promise<TreeDiffEntry[]> {
  // -z: paths verbatim, never C-quoted; --no-abbrev: full blob ids, which `blobSizes` looks up.
  const out = await run(root, ["diff-tree", "-r", renames ? "-M" : "--no-renames", "-z", "--raw", "--no-abbrev", a, b]);
  const fields = out.toString(encoding).split("\0");
  const entries: TreeDiffEntry[] = [];
  // Each record: ":<old mode> <new mode> <old blob> <new blob> <status>" then its path, or for a
  // rename "R<similarity>" then the old and the new path.
  for (let i = 0; i + 1 < fields.length; ) {
    const [oldMode = "", newMode = "", oldBlob = "", newBlob = "", code = ""] = fields[i]!.slice(1).split(" ");
    if (code.startsWith("R")) {
      entries.push({ status: "R", oldPath: fields[i + 1]!, path: fields[i + 2]!, oldMode, newMode, oldBlob, newBlob });
      i += 3;
    } else {
      entries.push({ status: code as TreeDiffEntry["status"], path: fields[i + 1]!, oldMode, newMode, oldBlob, newBlob });
      i += 2;
    }
  }
  return entries;
}

/**
 * The blob id of each regular file through the path's clean filters and attributes (eol
 * conversion, git-lfs), in one git call. `git add` stores that id, except where the index
 * already holds the file with CRLF (text=auto keeps it then): compare with the raw id too.
 */
export async function hashFiles(root: string, paths: string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  // --stdin-paths reads one path a line, and unquotes a line that starts with a double quote.
  // A trailing CR would be taken as part of the line ending, so any control byte gets quoted too.
  const lines = paths.map((p) => (/^"|[\x00-\x1f]/.test(p) ? cQuote(p) : p)).join("\n") + "\n";
  const ids = (await text(root, ["hash-object", "--stdin-paths"], { input: Buffer.from(lines, "latin1") })).split("\n");
  if (ids.length !== paths.length) throw new InternalError(`git hash-object gave ${ids.length} ids for ${paths.length} paths`);
  return ids;
}

/** A path (latin1 bytes) in git's C quoting: "…" with \\, \" and octal escapes for other bytes. */
function cQuote(bytes: string): string {
  let out = '"';
  for (const ch of bytes) {
    const code = ch.charCodeAt(0);
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (code < 0x20 || code >= 0x7f) out += `\\${code.toString(8).padStart(3, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * The blob id of `content` without git (a symlink's target: no filters apply). The hash follows
 * the repository's object format, told by the length of an id from it: SHA-1 or SHA-256.
 */
export function blobId(content: Buffer, likeId: string): string {
  return createHash(likeId.length === 64 ? "sha256" : "sha1")
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest("hex");
}

/** The size in bytes of each given blob, in one git call. */
export async function blobSizes(root: string, blobs: string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  if (blobs.length === 0) return sizes;
  const out = await text(root, ["cat-file", "--batch-check"], { input: blobs.join("\n") + "\n" });
  for (const line of out.split("\n")) {
    const [id, type, size] = line.split(" "); // "<id> blob <size>", or "<id> missing"
    if (id && type === "blob" && size) sizes.set(id, Number(size));
  }
  return sizes;
}

export interface TreeChange {
  status: "A" | "M" | "D" | "T";
  /** The path's bytes, one character per byte (latin1): file names need not be UTF-8. */
  path: string;
  /** The entry on each side ("000000" and the zero id where the path does not exist). */
  oldMode: string;
  oldBlob: string;
  mode: string;
  blob: string;
}

/**
 * A submodule's entry: a snapshot records its commit, but its work tree is a repository of its
 * own that nudge never rewrites (as `git checkout` without --recurse-submodules leaves it).
 */
export function isSubmodule(change: TreeChange): boolean {
  return change.mode === "160000" || change.oldMode === "160000";
}

/** A TreeChange path (bytes, one character each) as a person reads it. */
export function displayPath(bytes: string): string {
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/**
 * A path for the terminal: one with control characters (an escape sequence, a newline) is shown
 * quoted and escaped, as git quotes such names, so that a file name can neither restyle the
 * screen nor pass for another line of a plan the user is asked to confirm.
 */
export function printablePath(path: string): string {
  // inertJson: JSON.stringify leaves C1 controls (U+009B is CSI) and bidi overrides as they are.
  return hasControls(path) ? inertJson(JSON.stringify(path)) : path;
}

/** A path of a work tree as the file system takes it: `rel` is git's bytes (latin1, one character per byte), the root the file system's own. */
export function pathOnDisk(root: string, rel: string): Buffer {
  return Buffer.concat([Buffer.from(`${root}/`), Buffer.from(rel, "latin1")]);
}

/** `displayPath`, then `printablePath`: a path's bytes as a line of text shows them. */
export function shownPath(bytes: string): string {
  return printablePath(displayPath(bytes));
}

/** What changes between two trees, path by path, without rename pairing (what a checkout must do). */
export async function changedPaths(root: string, a: string, b: string): Promise<TreeChange[]> {
  const entries = await diffEntries(root, a, b, false, "latin1");
  return entries.map((e) => ({
    status: e.status as TreeChange["status"],
    path: e.path,
    oldMode: e.oldMode,
    oldBlob: e.oldBlob,
    mode: e.newMode,
    blob: e.newBlob,
  }));
}

/** Set (or, for deletions, drop) exactly these entries in a private index, leaving all others alone. */
export async function setIndexEntries(root: string, indexFile: string, changes: TreeChange[]): Promise<void> {
  if (changes.length === 0) return;
  // --index-info: "<mode> <id>\t<path>"; mode 0 removes the path.
  // The id of a removal is ignored, but must have the repository's hash length (SHA-1 or SHA-256).
  const input = changes.map((c) => `${c.status === "D" ? `0 ${"0".repeat(c.oldBlob.length)}` : `${c.mode} ${c.blob}`}\t${c.path}\0`).join("");
  await run(root, ["update-index", "-z", "--index-info"], { indexFile, input: Buffer.from(input, "latin1") });
}

/** Write the given paths from the private index into the work tree (modes and symlinks included). */
export async function checkoutPaths(root: string, indexFile: string, paths: string[]): Promise<void> {
  if (paths.length === 0) return;
  // -z --stdin: any path and no argv length limit. No -u: recording the new files' stat data
  // would rewrite the whole index (~40 ms at 100k files, measured) to spare the check that
  // follows hashing only the files just written.
  await run(root, ["checkout-index", "-f", "-z", "--stdin"], { indexFile, input: Buffer.from(paths.join("\0"), "latin1") });
}

/**
 * Paths where the work tree differs from a private index: modified, deleted or untracked (not
 * ignored). Empty means the work tree's tree is exactly the index's. One scan, like `git status`.
 */
export async function workTreeDifferences(root: string, indexFile: string, exclude: string[] = []): Promise<string[]> {
  // --ignore-submodules=all: a submodule's own work tree is not part of a snapshot (only its commit is).
  const out = await run(root, ["status", "--porcelain=v1", "-z", "-uall", "--no-renames", "--ignore-submodules=all", "--", ":/", ...excluding(exclude)], {
    indexFile,
  });
  return out
    .toString("latin1")
    .split("\0")
    .filter((entry) => entry.length > 3 && (entry[1] !== " " || entry.startsWith("??")))
    .map((entry) => entry.slice(3));
}

/**
 * Which of `paths` the ignore rules of `tree` would ignore: its .gitignore files along those
 * paths, plus the repository's info/exclude and the user's excludes file. The .gitignore files
 * are laid out in a scratch folder and `git check-ignore --no-index` is asked there, so a tree
 * that is not checked out can be asked (the work tree and every index stay untouched).
 */
export async function ignoredInTree(root: string, tree: string, paths: string[], scratch: string): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const folders = new Set<string>([""]);
  for (const p of paths) for (let at = p.lastIndexOf("/"); at > 0; at = p.lastIndexOf("/", at - 1)) folders.add(p.slice(0, at));
  const specs = [...folders].map((f) => (f ? `${f}/.gitignore` : ".gitignore"));
  const out = await run(root, ["cat-file", "--batch"], { input: Buffer.from(specs.map((s) => `${tree}:${s}`).join("\n") + "\n", "latin1") });
  let at = 0;
  for (const spec of specs) {
    const header = out.toString("latin1", at, out.indexOf(0x0a, at));
    at += header.length + 1;
    const size = /^\S+ blob (\d+)$/.exec(header)?.[1];
    if (size === undefined) continue; // "<spec> missing"
    await fs.mkdir(pathOnDisk(scratch, spec.slice(0, Math.max(0, spec.lastIndexOf("/")))), { recursive: true });
    await fs.writeFile(pathOnDisk(scratch, spec), out.subarray(at, at + Number(size)));
    at += Number(size) + 1;
  }
  const gitDir = path.dirname(await indexPath(root));
  const result = await run(scratch, ["--git-dir", gitDir, "--work-tree", scratch, "check-ignore", "--no-index", "-z", "--stdin"], {
    input: Buffer.from(paths.join("\0") + "\0", "latin1"),
    tolerate: (code) => code === 1, // 1: none of them is ignored
  });
  return new Set(result.toString("latin1").split("\0").filter(Boolean));
}

/** One blob's content, as stored. */
export function readBlob(root: string, id: string): Promise<Buffer> {
  return run(root, ["cat-file", "blob", id]);
}

/** Several blobs' contents in one `cat-file --batch`, in the order asked. */
export async function readBlobs(root: string, ids: string[]): Promise<Buffer[]> {
  if (ids.length === 0) return [];
  const raw = await run(root, ["cat-file", "--batch"], { input: ids.map((id) => `${id}\n`).join("") });
  const blobs: Buffer[] = [];
  let at = 0;
  for (const id of ids) {
    const headerEnd = raw.indexOf(0x0a, at);
    const [, type, size] = raw.toString("utf8", at, headerEnd).split(" "); // "<id> blob <size>", or "<id> missing"
    if (type !== "blob") throw new InternalError(`${id} is not a blob`);
    blobs.push(raw.subarray(headerEnd + 1, headerEnd + 1 + Number(size)));
    at = headerEnd + 1 + Number(size) + 1;
  }
  return blobs;
}

/** Make the user's index hold `commit`'s tree (the index half of `git reset --mixed`). Only with --reset-head. */
export async function resetIndexTo(root: string, commit: string): Promise<void> {
  await run(root, ["read-tree", commit]);
}

/** Move a branch (or a detached HEAD) only if it still points where we last saw it. */
export async function moveRef(root: string, ref: string, to: string, expected: string): Promise<void> {
  // --no-deref: with ref = "HEAD" on a detached HEAD, move HEAD itself, not what it may point to.
  await run(root, ["update-ref", "--no-deref", "-m", "nudge rewind --reset-head", ref, to, expected]);
}

/** A new worktree at `commit`, detached so no branch is created or moved behind the user's back. */
export async function addWorktree(root: string, dir: string, commit: string): Promise<void> {
  await run(root, ["worktree", "add", "--detach", "--quiet", dir, commit], {
    // Where git cannot make the folder (a file in the path, no permission), git says why.
    explain: (stderr) => {
      const why = /fatal: (.*)/.exec(stderr)?.[1];
      return why ? new UserError(`git could not add a worktree at ${dir}: ${why}`, "pick another path for --worktree") : undefined;
    },
  });
}

/** Undo `addWorktree` when what was to go into it failed (the worktree holds nothing of the user's yet). */
export async function removeWorktree(root: string, dir: string): Promise<void> {
  // --force twice: a worktree git add was killed inside is locked ("initializing"), and one --force skips only a dirty one.
  await run(root, ["worktree", "remove", "--force", "--force", dir]);
}

/** Unlock a worktree (`git worktree add` locks it while it checks out: killed then, it stays locked). */
export async function unlockWorktree(root: string, dir: string): Promise<void> {
  await run(root, ["worktree", "unlock", dir]);
}

/** Forget worktrees whose folder is gone (git's own bookkeeping under .git/worktrees/). */
export async function pruneWorktrees(root: string): Promise<void> {
  await run(root, ["worktree", "prune"]);
}


// ─── Git bundles: the code of an exported session ────────────────────────────────────────────────
// (One block, for `nudge session export` / `import`. A bundle is thin against what a teammate's
// clone can be expected to have: everything reachable from remote-tracking branches.)

export interface BundleHeader {
  /** Commits the bundle's objects build on: the receiving repository must have them. */
  prerequisites: string[];
  /** The refs the bundle carries, as named when it was made. */
  heads: Array<{ ref: string; commit: string }>;
}

export interface CreatedBundle extends BundleHeader {
  /** Each prerequisite with a remote-tracking branch that holds it, for an importer's `git fetch` hint. */
  prerequisiteRemotes: Array<{ commit: string; remoteRef: string | null }>;
  /** Those of `reach` on no remote-tracking branch: the bundle carries them (and what they need) as heads. */
  carried: Array<{ ref: string; commit: string }>;
}

/**
 * Bundle `tips` (ref name → commit; the names are what the bundle's header calls them) without
 * the history every remote-tracking branch already reaches. A commit of `reach` (the base commit,
 * HEADs recorded during the session) that no remote-tracking branch reaches is carried too, with
 * what it needs, under its ref, and reported in `carried`: a clone that never saw it still imports.
 *
 * Nothing is written to the repository: the refs a bundle needs live in a scratch repository
 * that borrows this one's objects (objects/info/alternates). Blobs are packed once however many
 * snapshots hold them, and deltified against each other.
 */
export async function createBundle(
  root: string,
  file: string,
  tips: Array<{ ref: string; commit: string }>,
  reach: Array<{ ref: string; commit: string }> = [],
  scratchParent?: string,
): Promise<CreatedBundle> {
  file = path.resolve(file); // git runs in the scratch repository
  return withScratchRepository(root, scratchParent, async (scratch) => {
    const remotes = (await text(root, ["for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes"])).split("\n").filter(Boolean);
    const own = [...tips, ...reach];
    const updates = [...own.map((t) => `create ${t.ref} ${t.commit}\n`), ...remotes.map((line) => `create ${line.split(" ")[1]} ${line.split(" ")[0]}\n`)];
    await run(scratch, ["update-ref", "--stdin"], { input: updates.join(""), internal: true });
    const unreached = reach.length ? new Set((await text(scratch, ["rev-list", ...reach.map((r) => r.ref), "--not", "--remotes"])).split("\n")) : new Set<string>();
    const carried = reach.filter((r) => unreached.has(r.commit));
    const revs = [...tips, ...carried].map((t) => t.ref);
    // --stdin takes revisions, not options like --remotes: the remote-tracking tips go as ^<ref>.
    const exclude = remotes.map((line) => `^${line.split(" ")[1]}`);
    // One thread: pack-objects' delta search split over threads can pick other bases run to run,
    // and an export must be the same bytes every time.
    await run(scratch, ["-c", "pack.threads=1", "bundle", "create", "--quiet", file, "--stdin"], { input: [...revs, ...exclude].join("\n") + "\n", internal: true });
    const header = await readBundleHeader(file);
    const prerequisiteRemotes = [];
    for (const commit of header.prerequisites) {
      // Any remote-tracking branch holding it but origin/HEAD, which only names another.
      const holders = (await text(root, ["for-each-ref", "--contains", commit, "--format=%(symref)|%(refname:short)", "refs/remotes"])).split("\n");
      const holder = holders.find((h) => h.startsWith("|"))?.slice(1) ?? null;
      prerequisiteRemotes.push({ commit, remoteRef: holder });
    }
    return { ...header, prerequisiteRemotes, carried };
  });
}

/**
 * A bare repository in a temp dir that sees every object of `root` (objects/info/alternates) and
 * whose refs and new objects are its own: work that must not write into the user's repository.
 */
async function withScratchRepository<T>(root: string, parent: string | undefined, use: (scratch: string) => Promise<T>): Promise<T> {
  // `parent`: a command's work folder in the store, so a kill leaves nothing in the OS's temp dir.
  const scratch = await fs.mkdtemp(path.join(parent ?? os.tmpdir(), "nudge-git-"));
  try {
    await run(scratch, ["init", "--quiet", "--bare", `--object-format=${await objectFormat(root)}`, "."]);
    await fs.writeFile(path.join(scratch, "objects", "info", "alternates"), path.join((await repoLocation(root)).commonDir, "objects") + "\n");
    return await use(scratch);
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** The repository's hash: "sha1" or "sha256" (an export records it; a clone must match). */
export async function objectFormat(root: string): Promise<"sha1" | "sha256"> {
  return (await text(root, ["rev-parse", "--show-object-format"])) === "sha256" ? "sha256" : "sha1";
}

/** The root commits (no parents) of `commit`'s history, at most `max`: what tells one project's history from another's. */
export async function rootCommits(root: string, commit: string, max: number): Promise<string[]> {
  const out = await text(root, ["rev-list", "--max-parents=0", `--max-count=${max}`, commit]);
  return out ? out.split("\n") : [];
}

/** A shallow clone lacks its history's root commits although it is the same project. */
export async function isShallow(root: string): Promise<boolean> {
  return (await text(root, ["rev-parse", "--is-shallow-repository"])) === "true";
}

/** Who is exporting, as git knows them (user.name, user.email), each null when unset. */
export async function userIdentity(root: string): Promise<{ name: string | null; email: string | null }> {
  return { name: await answer(root, ["config", "user.name"]), email: await answer(root, ["config", "user.email"]) };
}

/** A bundle's header (v2 or v3), read without git: its prerequisites and its refs. */
export async function readBundleHeader(file: string): Promise<BundleHeader> {
  const handle = await fs.open(file, "r");
  let head: string;
  try {
    // The header is text up to the first empty line; a bundle of a session has a few dozen refs.
    const buffer = Buffer.alloc(4 * 1024 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, bytesRead).indexOf("\n\n");
    head = end === -1 ? "" : buffer.toString("utf8", 0, end);
  } finally {
    await handle.close();
  }
  const [signature, ...lines] = head.split("\n");
  if (signature !== "# v2 git bundle" && signature !== "# v3 git bundle") throw new UserError(`${file} is not a git bundle`, "the export's git bundle is damaged; ask for a fresh export");
  const header: BundleHeader = { prerequisites: [], heads: [] };
  for (const line of lines) {
    if (line.startsWith("@")) continue; // v3 capabilities (@object-format=…)
    const prerequisite = /^-([0-9a-f]{40}|[0-9a-f]{64})(?: .*)?$/.exec(line);
    const head = /^([0-9a-f]{40}|[0-9a-f]{64}) (refs\/[^\s]+)$/.exec(line);
    if (prerequisite) header.prerequisites.push(prerequisite[1]!);
    else if (head) header.heads.push({ commit: head[1]!, ref: head[2]! });
    else throw new UserError(`${file} has a damaged git bundle header`, "ask for a fresh export");
  }
  return header;
}

/** The prerequisites of a bundle this repository lacks (an import must stop before touching anything). */
export async function missingPrerequisites(root: string, header: BundleHeader): Promise<string[]> {
  const missing: string[] = [];
  for (const commit of header.prerequisites) if (!(await objectExists(root, `${commit}^{commit}`))) missing.push(commit);
  return missing;
}

/**
 * `git bundle verify`: the header is sound and this repository has every prerequisite. `remotes`
 * (from the exporter's `prerequisiteRemotes`) names the branch a missing commit is probably on.
 */
export async function verifyBundle(root: string, file: string, remotes: Array<{ commit: string; remoteRef: string | null }> = []): Promise<BundleHeader> {
  const header = await readBundleHeader(file);
  const missing = await missingPrerequisites(root, header);
  if (missing.length) {
    const where = (commit: string) => remotes.find((r) => r.commit === commit)?.remoteRef;
    const named = missing.map((c) => (where(c) ? `${c} (on ${where(c)} where it was exported)` : c)).join(", ");
    const branch = missing.map(where).find(Boolean);
    throw new UserError(
      `this repository lacks commit ${named}, which the session's code builds on`,
      branch ? `fetch it: git fetch ${branch.split("/")[0]} ${branch.split("/").slice(1).join("/")}, then import again` : "fetch it (git fetch), then import again",
    );
  }
  await run(root, ["bundle", "verify", "--quiet", file], {
    explain: (stderr) => new UserError(`the export's git bundle does not verify: ${stderr.split("\n").at(-1)}`, "ask for a fresh export"),
  });
  return header;
}

/**
 * Put a bundle's objects into the repository and point new refs at its heads (`from` a ref in
 * the bundle, `to` a ref that must not exist yet), in one transaction: no branch, HEAD, index or
 * work tree is touched. Everything is checked first (`checkBundle`): a damaged bundle leaves
 * nothing in the repository, not even a half-written pack. `beforeWriting` runs in the scratch
 * repository with the bundle's objects in place (an importer applies its patches there and
 * compares trees): if it throws, nothing was written.
 */
export async function unbundle(
  root: string,
  file: string,
  refs: Array<{ from: string; to: string }>,
  remotes: Array<{ commit: string; remoteRef: string | null }> = [],
  beforeWriting?: (scratch: string) => Promise<void>,
): Promise<void> {
  const { commits } = await checkBundle(root, file, refs.map((r) => r.from), remotes, beforeWriting);
  await installBundle(root, file, refs.map((r, i) => ({ ref: r.to, commit: commits[i]! })));
}

/**
 * Everything `unbundle` checks, and nothing written to `root`: the prerequisites are here, and in
 * a scratch repository that borrows this one's objects, index-pack hashes every object and the
 * history of `heads` (refs named in the bundle) is complete. `inScratch` runs there last, with
 * the bundle's objects in place. Returns the commit of each of `heads`.
 */
export async function checkBundle(
  root: string,
  file: string,
  heads: string[],
  remotes: Array<{ commit: string; remoteRef: string | null }> = [],
  inScratch?: (scratch: string) => Promise<void>,
  scratchParent?: string,
): Promise<{ header: BundleHeader; commits: string[] }> {
  file = path.resolve(file); // git runs in the scratch repository too
  const header = await verifyBundle(root, file, remotes);
  const commits = heads.map((ref) => {
    const head = header.heads.find((h) => h.ref === ref);
    if (!head) throw new UserError(`the export's git bundle has no ${ref}`, "the export is damaged; ask for a fresh export");
    return head.commit;
  });
  const damaged = (stderr: string) => {
    const why = stderr.split("\n").find((l) => /^(fatal|error): /.test(l)) ?? stderr.split("\n").at(-1);
    return new UserError(`the export's git bundle is damaged (${why})`, "ask for a fresh export");
  };
  await withScratchRepository(root, scratchParent, async (scratch) => {
    await run(scratch, ["bundle", "unbundle", file], { internal: true, explain: damaged });
    await run(scratch, ["rev-list", "--objects", "--quiet", ...commits, "--not", ...header.prerequisites], { explain: damaged });
    await inScratch?.(scratch);
  });
  return { header, commits };
}

/** After `checkBundle`: the bundle's objects into the repository, and `refs` (none may exist yet) created in one transaction. */
export async function installBundle(root: string, file: string, refs: Array<{ ref: string; commit: string }>): Promise<void> {
  await run(root, ["bundle", "unbundle", path.resolve(file)], { internal: true });
  await run(root, ["update-ref", "--stdin"], { input: refs.map((r) => `create ${r.ref} ${r.commit}\n`).join(""), internal: true });
}

/** The tree `patch` makes of `tree`, computed in a private index (nothing else is touched); a UserError when it does not apply. */
export async function applyToTree(root: string, indexFile: string, tree: string, patch: Buffer): Promise<string> {
  await run(root, ["read-tree", tree], { indexFile });
  if (patch.length > 0) {
    await run(root, ["apply", "--cached", "--whitespace=nowarn", "-"], {
      indexFile,
      input: patch,
      explain: (stderr) => new UserError(`a patch in the export does not apply: ${stderr.split("\n")[0]}`, "the export is damaged or does not match this repository; ask for a fresh export"),
    });
  }
  return text(root, ["write-tree"], { indexFile });
}

/** `tree` with these entries set (or, for deletions, dropped), computed in a private index (nothing else is touched). */
export async function overlayTree(root: string, indexFile: string, tree: string, changes: TreeChange[]): Promise<string> {
  await run(root, ["read-tree", tree], { indexFile });
  await setIndexEntries(root, indexFile, changes);
  return text(root, ["write-tree"], { indexFile });
}

export interface ChainCommit {
  commit: string;
  tree: string;
  parents: string[];
  /** git's raw dates, "<epoch> <zone>": what a copy of the commit needs to keep them. */
  authorDate: string;
  committerDate: string;
  message: string;
}

/** The commits reachable from `tip` but not from `stop`, parents before children, with all a copy needs. */
export async function commitChain(root: string, tip: string, stop: string | null): Promise<ChainCommit[]> {
  // NUL cannot occur in a commit message (git refuses it), so it separates the fields.
  const out = await run(root, ["rev-list", "--reverse", "--topo-order", "--date=raw", "--format=%T%x00%P%x00%ad%x00%cd%x00%B%x00", tip, ...(stop ? [`^${stop}`] : [])]);
  const chain: ChainCommit[] = [];
  const record = /commit ([0-9a-f]+)\n([0-9a-f]+)\0([0-9a-f ]*)\0([^\0]*)\0([^\0]*)\0([^\0]*)\0\n/g;
  for (const m of out.toString("utf8").matchAll(record)) {
    chain.push({ commit: m[1]!, tree: m[2]!, parents: m[3] ? m[3].split(" ") : [], authorDate: m[4]!, committerDate: m[5]!, message: m[6]! });
  }
  return chain;
}

/**
 * The patch `diffTrees` makes for each pair of trees, in one git process (`diff-tree --stdin`):
 * an importer compares them with the patches it was handed instead of applying each one.
 */
export async function diffTreePairs(root: string, pairs: Array<[string, string]>): Promise<Buffer[]> {
  if (pairs.length === 0) return [];
  const out = await run(root, ["diff-tree", "--stdin", "-r", "-p", "--full-index", "-M", "--no-color"], { input: pairs.map(([a, b]) => `${a} ${b}\n`).join("") });
  // git echoes each input line, then its patch (nothing for equal trees). A patch line never is two bare ids.
  const bounds: Array<{ from: number; to: number }> = [];
  let next = 0;
  for (let start = 0; start < out.length && next < pairs.length; ) {
    const end = out.indexOf(0x0a, start);
    const stop = end === -1 ? out.length : end + 1;
    if (out.toString("latin1", start, stop) === `${pairs[next]![0]} ${pairs[next]![1]}\n`) {
      if (bounds.length) bounds.at(-1)!.to = start;
      bounds.push({ from: stop, to: out.length });
      next++;
    }
    start = stop;
  }
  if (bounds.length !== pairs.length) throw new InternalError(`git diff-tree --stdin answered ${bounds.length} of ${pairs.length} pairs`);
  return bounds.map((b) => out.subarray(b.from, b.to));
}

/**
 * New commits that are copies of existing ones, with another message where one is given
 * (everything else — tree, author, committer, dates — kept). `parents` are the original's; one
 * copied in the same batch (they come first) becomes its copy. Read in one `cat-file --batch`,
 * written in one `hash-object -w`: the same copies always give the same ids. Returns the new ids.
 */
export async function copyCommits(root: string, copies: Array<{ commit: string; parents: string[]; message?: string }>): Promise<string[]> {
  if (copies.length === 0) return [];
  const format = await objectFormat(root);
  const raw = await run(root, ["cat-file", "--batch"], { input: copies.map((c) => `${c.commit}\n`).join("") });
  const objects: Buffer[] = [];
  const ids: string[] = [];
  const copied = new Map<string, string>();
  let at = 0;
  for (const c of copies) {
    const headerEnd = raw.indexOf(0x0a, at);
    const [, type, size] = raw.toString("utf8", at, headerEnd).split(" ");
    if (type !== "commit") throw new InternalError(`${c.commit} is not a commit`);
    const body = raw.toString("utf8", headerEnd + 1, headerEnd + 1 + Number(size));
    at = headerEnd + 1 + Number(size) + 1;
    const split = body.indexOf("\n\n");
    const headers = body.slice(0, split).split("\n").filter((line) => !line.startsWith("parent "));
    // A parent copied in this batch is named by its copy (parents come first, so its id is known).
    headers.splice(1, 0, ...c.parents.map((p) => `parent ${copied.get(p) ?? p}`)); // right after "tree …", as git writes them
    const object = Buffer.from(`${headers.join("\n")}\n\n${c.message ?? body.slice(split + 2)}`);
    const id = createHash(format).update(`commit ${object.length}\0`).update(object).digest("hex");
    objects.push(object);
    ids.push(id);
    copied.set(c.commit, id);
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "nudge-commits-"));
  try {
    const files = await Promise.all(objects.map(async (o, i) => {
      const file = path.join(dir, String(i));
      await fs.writeFile(file, o);
      return file;
    }));
    const written = (await text(root, ["hash-object", "-t", "commit", "-w", "--stdin-paths"], { input: files.join("\n") + "\n" })).split("\n");
    if (written.join() !== ids.join()) throw new InternalError("git hashed the copied commits differently");
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
  return ids;
}

/** Move refs in one transaction, each only if it still points where it was seen (an import's --force sets a session aside). */
export async function moveRefs(root: string, moves: Array<{ from: string; to: string; commit: string }>): Promise<void> {
  if (moves.length === 0) return;
  await run(root, ["update-ref", "--stdin"], {
    input: moves.map((m) => `create ${m.to} ${m.commit}\ndelete ${m.from} ${m.commit}\n`).join(""),
    internal: true,
  });
}

// ---- session housekeeping (nudge session rm / gc / backups) ----------------------------------

export interface RefTip {
  ref: string;
  commit: string;
  /** When the commit it points at was made (epoch seconds): for a backup, when it was taken. */
  time: number;
}

/** The refs under the given prefixes (e.g. "refs/nudge/backup/"), with their tips and commit times. */
export async function listRefs(root: string, prefixes: string[]): Promise<RefTip[]> {
  if (prefixes.length === 0) return [];
  // %(committerdate:unix) is empty for a ref to something not a commit: such a ref is not nudge's.
  const out = await text(root, ["for-each-ref", "--format=%(objectname) %(committerdate:unix) %(refname)", ...prefixes]);
  return out
    .split("\n")
    .map((line) => /^([0-9a-f]+) (\d+) (\S.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ ref: m[3]!, commit: m[1]!, time: Number(m[2]) }));
}

/**
 * Delete refs in one transaction, each only if it still points where it was seen: a ref moved
 * since (a turn recorded meanwhile) makes the whole deletion fail rather than lose that turn.
 */
export async function deleteRefsAt(root: string, refs: Array<{ ref: string; commit: string }>): Promise<void> {
  if (refs.length === 0) return;
  await run(root, ["update-ref", "--stdin"], {
    input: refs.map((r) => `delete ${r.ref} ${r.commit}\n`).join(""),
    internal: true,
    explain: (stderr) =>
      /cannot lock ref|is at .* but expected/.test(stderr)
        ? new UserError("a snapshot ref changed while nudge was removing it; nothing more was removed", "run the command again to see the new plan")
        : undefined,
  });
}
// ---- end of session housekeeping ------------------------------------------------------------
