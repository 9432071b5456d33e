/**
 * Every git operation nudge makes, one small function each, explicit cwd, arguments as arrays.
 * Split by concern: git-process.ts runs git, git-index.ts works on private indexes,
 * git-bundle.ts carries an export's code; this file re-exports them, so callers import one module.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { UserError, InternalError } from "../base/errors.js";
import { hasControls, visibleJson } from "../base/inert-text.js";
import { answer, run, SNAPSHOT_IDENTITY, spawnGit, text } from "./git-process.js";
import { knownIndexPaths as indexPaths, knownInfoExcludes as infoExcludes } from "./repo-location.js";

export { NO_REF } from "./git-process.js";
export * from "./git-index.js";
export * from "./git-bundle.js";
export { repoLocation, repoRoot } from "./repo-location.js";

/** The submodules in the index of the work tree at `root` (gitlinks, mode 160000), relative to the top; none when git cannot say. */
export async function gitlinkPaths(root: string): Promise<string[]> {
  const r = await spawnGit(root, ["ls-files", "--stage", "-z"]);
  if (r.exitCode !== 0) return [];
  // "<mode> <id> <stage>\t<path>" each, NUL-terminated.
  return r.stdout
    .toString("utf8")
    .split("\0")
    .flatMap((entry) => (entry.startsWith("160000 ") ? [entry.slice(entry.indexOf("\t") + 1)] : []));
}

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
    known = askIgnoreFiles(root);
    known.catch(() => ignoreSources.delete(root));
    ignoreSources.set(root, known);
  }
  return known;
}

/** `ignoreFiles`, asked of git now (core.excludesFile as the config says it at this moment). */
export async function askIgnoreFiles(root: string): Promise<string[]> {
  const [exclude, configured] = await Promise.all([
    infoExcludes.get(root) ??
      text(root, ["rev-parse", "--git-path", "info/exclude"]).then((p) => path.resolve(root, p)),
    answer(root, ["config", "--path", "core.excludesFile"]),
  ]);
  const xdg = process.env.XDG_CONFIG_HOME || path.join(process.env.HOME ?? "", ".config");
  return [exclude, configured ? path.resolve(root, configured) : path.join(xdg, "git", "ignore")];
}

/** Whether git ignores a path of the work tree (any .gitignore, info/exclude, core.excludesFile). */
export async function isIgnored(root: string, rel: string): Promise<boolean> {
  // check-ignore exits 1 for a path nothing ignores; --no-index: a tracked file is judged by the rules too.
  const out = await text(root, ["check-ignore", "--no-index", "-z", "--stdin"], {
    input: `${rel}\0`,
    tolerate: (code) => code === 1,
  });
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
  return [...result.stdout.toString("utf8").matchAll(/^([0-9a-f]{40,64}) \S*@\{(\d+)\}$/gm)].map((m) => ({
    commit: m[1]!,
    time: Number(m[2]),
  }));
}

/** The commit a ref points at, or null when there is no such ref. */
export async function refCommit(root: string, ref: string): Promise<string | null> {
  return answer(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
}

/** The checked-out branch name, or null when HEAD is detached (or names a ref that is no branch). */
export async function currentBranch(root: string): Promise<string | null> {
  // The full ref, not --short: with a tag of the branch's name, --short says "heads/main".
  const ref = await answer(root, ["symbolic-ref", "--quiet", "HEAD"]);
  return ref?.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : null;
}

/** The empty tree's id in this repository's hash (what an unborn branch's "base" is). */
export async function emptyTree(root: string): Promise<string> {
  return text(root, ["hash-object", "-t", "tree", "--stdin"], { input: "" });
}

/** Whether the object is in the repository (a snapshot's objects can be pruned once its refs are gone). */
export async function objectExists(root: string, id: string): Promise<boolean> {
  return (await spawnGit(root, ["cat-file", "-e", id])).exitCode === 0;
}

/** Which of these objects (full ids) the repository has, in one process; with `type`, only objects of that type count. */
export async function objectsExist(root: string, ids: string[], type?: "tree"): Promise<boolean[]> {
  if (ids.length === 0) return [];
  const out = await text(root, ["cat-file", "--batch-check"], { input: ids.join("\n") + "\n" });
  // One line per id asked: "<id> <type> <size>", or "<id> missing".
  const lines = out.split("\n");
  return ids.map(
    (_, i) => lines[i] !== undefined && !lines[i]!.endsWith(" missing") && (!type || lines[i]!.split(" ")[1] === type),
  );
}

/**
 * What `path` is in each tree (its object id, or null where the tree has none), for every pair
 * asked, in one process. Paths with a newline cannot be asked this way: left out of the answer.
 */
export async function pathObjects(
  root: string,
  trees: string[],
  paths: string[],
): Promise<Map<string, Map<string, string | null>>> {
  const asked = paths.filter((p) => !p.includes("\n"));
  const names = trees.flatMap((t) => asked.map((p) => `${t}:${p}`));
  const out = names.length
    ? await text(root, ["cat-file", "--batch-check=%(objectname)"], { input: names.join("\n") + "\n" })
    : "";
  const lines = out.split("\n");
  const answer = new Map<string, Map<string, string | null>>();
  trees.forEach((t, ti) => {
    const m = new Map<string, string | null>();
    asked.forEach((p, pi) => {
      const line = lines[ti * asked.length + pi] ?? "";
      m.set(p, line.endsWith(" missing") || !/^[0-9a-f]{40,64}$/.test(line) ? null : line);
    });
    answer.set(t, m);
  });
  return answer;
}

/**
 * How many files differ between each pair of trees, in one process (`diff-tree --stdin`: one
 * process per pair made a listing of 700 rewinds take ten seconds). Every tree must exist.
 */
export async function changedFileCounts(root: string, pairs: Array<[string, string]>): Promise<number[]> {
  return (await treePairEntries(root, pairs)).map((entries) => entries.length);
}

/**
 * The files that differ between each pair of trees (as `diffEntries` without renames), in one
 * process: an export of a 300-turn session ran one git per turn for these (15 s). Trees only: a
 * line of two commits would be read as a commit and its parent, the other way round.
 */
export async function treePairEntries(
  root: string,
  pairs: Array<[string, string]>,
  /** "latin1" keeps every path byte as one character (byte-exact paths, for writing files). */
  encoding: "utf8" | "latin1" = "utf8",
): Promise<TreeDiffEntry[][]> {
  const asked = [...new Set(pairs.map(([a, b]) => `${a} ${b}`))];
  if (asked.length === 0) return pairs.map(() => []);
  const out = await run(root, ["diff-tree", "--stdin", "-r", "--no-renames", "-z", "--raw", "--no-abbrev"], {
    input: asked.join("\n") + "\n",
  });
  // For each pair: the line as it was given ("<a> <b>"), then one record per file that differs,
  // read by its NULs (a path may hold a newline), so a record never looks like a pair's line.
  const found = new Map<string, TreeDiffEntry[]>();
  for (let at = 0; at < out.length;) {
    const eol = out.indexOf(10, at);
    const line = out.toString("latin1", at, eol === -1 ? out.length : eol);
    const records = rawRecords(out, eol === -1 ? out.length : eol + 1, encoding);
    found.set(line, records.entries);
    at = records.end;
  }
  return pairs.map(([a, b]) => found.get(`${a} ${b}`) ?? []);
}

/** Is `ancestor` an ancestor of (or the same as) `commit`? */
export async function isAncestor(root: string, ancestor: string, commit: string): Promise<boolean> {
  return (await spawnGit(root, ["merge-base", "--is-ancestor", ancestor, commit])).exitCode === 0;
}

/** The tree of a commit. */
export async function treeOf(root: string, commit: string): Promise<string> {
  return text(root, ["rev-parse", `${commit}^{tree}`]);
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
 * `diffTrees`' patch, byte for byte, and the changes it is made of (paths as latin1, one
 * character per byte), from one git process: `--raw -z` before `-p` prints the raw records (NUL
 * separated), one NUL, then the very patch `diffTrees` prints. A turn's save needs both; two
 * processes cost it a few milliseconds more.
 */
export async function patchAndChanges(
  root: string,
  a: string,
  b: string,
): Promise<{ patch: Buffer; changes: TreeDiffEntry[] }> {
  return parsePatchAndChanges(await run(root, ["diff-tree", ...PATCH_AND_CHANGES, a, b]));
}

/** diff-tree's options for `patchAndChanges` (also given to a long-lived `diff-tree --stdin`: git-channels.ts). */
export const PATCH_AND_CHANGES = ["-r", "-z", "--raw", "--no-abbrev", "-p", "--full-index", "-M", "--no-color"];

export function parsePatchAndChanges(out: Buffer): { patch: Buffer; changes: TreeDiffEntry[] } {
  const { entries: changes, end } = rawRecords(out, 0, "latin1");
  // The NUL between the records and the patch (none when there is no patch to follow).
  return { patch: out.subarray(end < out.length && out[end] === 0 ? end + 1 : end), changes };
}

/**
 * The `diff-tree --raw -z` records from `at` on, up to the first byte that starts none, and where
 * they end. Each is ":<old mode> <new mode> <old blob> <new blob> <status>" then its path, or for
 * a rename or copy ("R<score>", "C<score>") the old and the new path, each ending in NUL. Paths
 * are decoded as `encoding` ("latin1" keeps each byte one character).
 */
function rawRecords(out: Buffer, at: number, encoding: "utf8" | "latin1"): { entries: TreeDiffEntry[]; end: number } {
  const entries: TreeDiffEntry[] = [];
  const field = (as: "utf8" | "latin1"): string => {
    const end = out.indexOf(0, at);
    if (end === -1) throw new InternalError("git diff-tree --raw -z: a record without its NUL");
    const value = out.toString(as, at, end);
    at = end + 1;
    return value;
  };
  while (at < out.length && out[at] === 0x3a /* ":" */) {
    const [oldMode = "", newMode = "", oldBlob = "", newBlob = "", code = ""] = field("latin1").slice(1).split(" ");
    if (code.startsWith("R") || code.startsWith("C")) {
      const oldPath = field(encoding);
      entries.push({ status: "R", oldPath, path: field(encoding), oldMode, newMode, oldBlob, newBlob });
    } else
      entries.push({
        status: code as TreeDiffEntry["status"],
        path: field(encoding),
        oldMode,
        newMode,
        oldBlob,
        newBlob,
      });
  }
  return { entries, end: at };
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
  return rawRecords(out, 0, encoding).entries;
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
  if (ids.length !== paths.length)
    throw new InternalError(`git hash-object gave ${ids.length} ids for ${paths.length} paths`);
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
  // Text may hold tabs and newlines (hasControls lets them be); a path holding one is quoted too.
  return hasControls(path) || /[\t\n]/.test(path) ? visibleJson(path) : path;
}

/** A path of a work tree as the file system takes it: `rel` is git's bytes (latin1, one character per byte), the root the file system's own. */
export function pathOnDisk(root: string, rel: string): Buffer {
  return Buffer.concat([Buffer.from(`${root}/`), Buffer.from(rel, "latin1")]);
}

/**
 * A path's bytes as text that tells every name apart: UTF-8 as it is; in git's quoting a name that
 * is not UTF-8 ("x\377.txt", where decoding would show two such names alike as "x\ufffd.txt"), and
 * one holding a quote or a backslash, which could otherwise pass for such a quoted name.
 */
export function textPath(bytes: string): string {
  const text = displayPath(bytes);
  const plain = !/["\\]/.test(text) && Buffer.from(text, "utf8").equals(Buffer.from(bytes, "latin1"));
  return plain ? text : cQuote(bytes);
}

/** `textPath`, then `printablePath`: a path's bytes as a line of text shows them. */
export function shownPath(bytes: string): string {
  return printablePath(textPath(bytes));
}

/** What changes between two trees, path by path, without rename pairing (what a checkout must do). */
export async function changedPaths(root: string, a: string, b: string): Promise<TreeChange[]> {
  return asChanges(await diffEntries(root, a, b, false, "latin1"));
}

/** `changedPaths` for each pair of trees, in one git process. */
export async function changedPathPairs(root: string, pairs: Array<[string, string]>): Promise<TreeChange[][]> {
  return (await treePairEntries(root, pairs, "latin1")).map(asChanges);
}

function asChanges(entries: TreeDiffEntry[]): TreeChange[] {
  return entries.map((e) => ({
    status: e.status as TreeChange["status"],
    path: e.path,
    oldMode: e.oldMode,
    oldBlob: e.oldBlob,
    mode: e.newMode,
    blob: e.newBlob,
  }));
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
      return why
        ? new UserError(`git could not add a worktree at ${dir}: ${why}`, "pick another path for --worktree")
        : undefined;
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
  const out = await text(root, [
    "for-each-ref",
    "--format=%(objectname) %(committerdate:unix) %(refname)",
    ...prefixes,
  ]);
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
        ? new UserError(
            "a snapshot ref changed while nudge was removing it; nothing more was removed",
            "run the command again to see the new plan",
          )
        : undefined,
  });
}
// ---- end of session housekeeping ------------------------------------------------------------
