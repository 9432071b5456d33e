/**
 * Move a work tree from one snapshot tree to another, touching only the paths that differ, then
 * check the result; if it is not exactly the target, save what is there and put the touched
 * paths back. Used by rewind, undo and fork.
 *
 * Why not `git read-tree -m -u from to`: it walks both whole trees (308 ms for a 3-file change in a
 * 100k-file repo, measured, against 173 ms for `git checkout`), and it overwrites an ignored file
 * that stands where the target has one (git 2.39), which would lose the user's file.
 *
 * Paths here are byte strings (latin1, one character per byte, see git.changedPaths): file names
 * need not be UTF-8, so they reach the file system as Buffers and are decoded only for messages.
 */
import { createHash } from "node:crypto";
import { createReadStream, lstatSync, promises as fs, rmdirSync, rmSync, type Stats } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import { UserError, errorMessage } from "../base/errors.js";
import * as git from "../snapshot/git.js";
import { faultPause, faultPoint } from "../base/fault-injection.js";
import type { PrivateIndex } from "../snapshot/private-index.js";
import { keepBackup } from "./rewind-log.js";

export interface PrivateWorkTree {
  root: string;
  /** A private index holding exactly `from` when a switch starts (it was just staged). */
  indexFile: string;
  /** Folders never snapshotted (nudge's and claude's own files), left out of every scan. */
  exclude: string[];
  /** The kept index object, told what it holds after a switch (its "nothing changed" shortcut trusts that). */
  index?: PrivateIndex;
}

const onDisk = git.pathOnDisk;

function parentOf(rel: string): string {
  const at = rel.lastIndexOf("/");
  return at === -1 ? "" : rel.slice(0, at);
}

/**
 * Paths the switch would create where something is on disk that it will not remove first.
 * Everything not ignored is in the captured tree, so what is found here is an ignored file (or
 * folder) of the user's, which no snapshot holds: refuse rather than overwrite it.
 */
export async function pathsInTheWay(root: string, changes: git.TreeChange[]): Promise<string[]> {
  const removed = new Set(changes.filter((c) => c.status === "D").map((c) => c.path));
  const blocked = new Set<string>();
  /** Files already where the switch writes: compared afterwards, all in one go. */
  const standing: git.TreeChange[] = [];
  // The added files' folders, asked once each (many files share them), synchronously (see `lstatAll`).
  const seen = new Map<string, Stats | null>();
  const lstatOf = (rel: string) => {
    if (!seen.has(rel)) seen.set(rel, lstatOrNull(onDisk(root, rel)));
    return seen.get(rel)!;
  };
  for (const change of changes) {
    if (change.status !== "A") continue;
    const parts = change.path.split("/");
    for (let i = 1; i <= parts.length; i++) {
      const rel = parts.slice(0, i).join("/");
      const stat = lstatOf(rel);
      if (!stat) break;
      if (removed.has(rel)) break; // a file the switch deletes first
      if (stat.isDirectory() && (i < parts.length || (await onlyRemoved(root, rel, removed)))) continue;
      if (i === parts.length) standing.push(change);
      else blocked.add(git.shownPath(rel));
      break;
    }
  }
  // The very file the switch would write, already there (an ignored file that was recorded
  // before it was ignored): nothing of the user's is lost by writing it.
  const found = await whatIsOnDisk(root, standing);
  for (const [i, c] of standing.entries()) if (found[i] !== "held") blocked.add(git.shownPath(c.path));
  return [...blocked];
}

/** A tree entry: a path (git's bytes), its mode and blob. */
export interface Entry {
  path: string;
  mode: string;
  blob: string;
}

/** What stands at an entry's path: exactly the entry, nothing, a folder, or something else. */
export type Found = "held" | "missing" | "folder" | "other";

/**
 * What stands at each entry's path, compared as git would record it. A regular file's bytes are
 * hashed here first: where they are the blob, it is held (git's own hash adds nothing). Only the
 * files whose bytes differ are hashed by git through the path's filters and attributes (eol
 * conversion, git-lfs), one process for them all: that id is what `git add` would store. Both
 * count, since `text=auto` keeps CRLF in a blob that already has it.
 */
export async function whatIsOnDisk(root: string, entries: Entry[]): Promise<Found[]> {
  const stats = await lstatAll(root, entries);
  // Many files: one git process hashes them faster than node reads them one by one (1,100 small
  // files: ~20 against ~200 ms, measured under load); a few: hashing them here spares the process.
  const regular = stats.filter((st) => st?.isFile()).length;
  const byGit =
    regular > IN_PROCESS_HASHES ? new Map(entries.filter((_, i) => stats[i]?.isFile()).map((e) => [e, ""])) : null;
  if (byGit) {
    const ids = await git.hashFiles(
      root,
      [...byGit.keys()].map((e) => e.path),
    );
    [...byGit.keys()].forEach((e, i) => byGit.set(e, ids[i]!));
  }
  const first = await Promise.all(
    entries.map((e, i) =>
      byGit?.get(e) === e.blob && stats[i] && sameMode(e, stats[i])
        ? ("held" as const)
        : found(root, e, stats[i] ?? null),
    ),
  );
  const filtered = entries.filter((_, i) => first[i] === "unhashed");
  if (filtered.length === 0) return first as Found[];
  const ids = byGit
    ? filtered.map((e) => byGit.get(e)!)
    : await git.hashFiles(
        root,
        filtered.map((e) => e.path),
      );
  const filteredIds = new Map(filtered.map((e, i) => [e, ids[i]]));
  return entries.map((e, i) =>
    first[i] === "unhashed" ? (filteredIds.get(e) === e.blob ? "held" : "other") : (first[i] as Found),
  );
}

/**
 * Each entry's lstat (null: nothing there, or unreadable). Synchronous, a batch at a time: 1,100
 * promised lstats cost a rewind ~25 ms of CPU and as much again in garbage collection (the thread
 * pool's round trip per call), the synchronous ones ~3 ms; between batches, a process that also
 * serves a terminal or a page (an in-session /rewind, nudge web) gets its turn.
 */
async function lstatAll(root: string, entries: Entry[]): Promise<Array<Stats | null>> {
  const stats: Array<Stats | null> = [];
  for (const [i, e] of entries.entries()) {
    if (i > 0 && i % SYNC_BATCH === 0) await nextTurn();
    stats.push(lstatOrNull(onDisk(root, e.path)));
  }
  return stats;
}

/** A path's lstat; null: nothing there, a file where a folder was expected (ENOTDIR), or unreadable. */
function lstatOrNull(file: Buffer): Stats | null {
  try {
    return lstatSync(file, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** File system calls made synchronously before the event loop gets a turn. */
const SYNC_BATCH = 512;

/** What stands at an entry's path, without git; "unhashed": a regular file whose raw bytes are not the blob, for git to hash through its filters. */
async function found(root: string, e: Entry, stat: Stats | null): Promise<Found | "unhashed"> {
  if (!stat) return "missing";
  if (stat.isDirectory()) return "folder";
  const file = onDisk(root, e.path);
  if (stat.isSymbolicLink())
    return e.mode === "120000" && git.blobId(await fs.readlink(file, { encoding: "buffer" }), e.blob) === e.blob
      ? "held"
      : "other";
  if (!stat.isFile() || !sameMode(e, stat)) return "other"; // a fifo, another mode
  return (await rawBlobId(file, stat.size, e.blob)) === e.blob ? "held" : "unhashed";
}

/** Above this many regular files, `whatIsOnDisk` has git hash them first. */
const IN_PROCESS_HASHES = 32;

function sameMode(e: Entry, stat: Stats): boolean {
  return e.mode === (stat.mode & 0o111 ? "100755" : "100644");
}

/** A file's blob id from its bytes as they are (no filters), read whole if small, else streamed. */
async function rawBlobId(file: Buffer, size: number, likeId: string): Promise<string | null> {
  try {
    if (size <= 8 * 1024 * 1024) return git.blobId(await fs.readFile(file), likeId);
    const hash = createHash(likeId.length === 64 ? "sha256" : "sha1").update(`blob ${size}\0`);
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
    return hash.digest("hex");
  } catch {
    return null; // unreadable here: git says what it makes of it
  }
}

/** Does the folder hold nothing but files the switch deletes (so it disappears with them)? */
async function onlyRemoved(root: string, dir: string, removed: Set<string>): Promise<boolean> {
  for (const entry of await fs.readdir(onDisk(root, dir), { withFileTypes: true, encoding: "buffer" })) {
    const rel = `${dir}/${entry.name.toString("latin1")}`;
    if (entry.isDirectory() ? !(await onlyRemoved(root, rel, removed)) : !removed.has(rel)) return false;
  }
  return true;
}

/**
 * A submodule that became a file or a folder (or the reverse): writing it would mean deleting a
 * repository, or writing into one. diff-tree shows a folder swap as the submodule's entry plus
 * files below its path.
 */
export function submoduleSwaps(changes: git.TreeChange[]): string[] {
  const files = changes.filter((c) => !git.isSubmodule(c));
  return changes
    .filter(git.isSubmodule)
    .filter((s) => s.status === "T" || files.some((c) => c.path.startsWith(`${s.path}/`)))
    .map((s) => git.shownPath(s.path));
}

/**
 * The touched files (not submodules) whose content on disk is no longer what the switch starts
 * from (the `old` side of each change), compared as git would record it (`whatIsOnDisk`).
 */
async function pathsChangedSince(
  root: string,
  files: git.TreeChange[],
  o: { acceptWritten?: boolean } = {},
): Promise<string[]> {
  if (files.length === 0) return [];
  // A path the switch creates is compared with what it writes: before a switch it may already
  // hold exactly that (an ignored copy of the same file); after it, "nothing there" means nothing there.
  const creates = (c: git.TreeChange) => c.oldMode === "000000";
  const found = await whatIsOnDisk(
    root,
    files.map((c) => (creates(c) ? c : { path: c.path, mode: c.oldMode, blob: c.oldBlob })),
  );
  // A path made below one the switch deletes (a symlink to a folder, where the target has a folder)
  // is seen through that link now: what stands there is the link's, checked as the deletion's.
  const deleted = new Set(files.filter((c) => c.status === "D").map((c) => c.path));
  const belowDeleted = (rel: string) => {
    for (let at = rel.lastIndexOf("/"); at > 0; at = rel.lastIndexOf("/", at - 1))
      if (deleted.has(rel.slice(0, at))) return true;
    return false;
  };
  const matches = (c: git.TreeChange, f: Found) =>
    creates(c)
      ? f === "missing" || f === "folder" || (o.acceptWritten === true && f === "held") || belowDeleted(c.path)
      : f === "held";
  return files.filter((c, i) => !matches(c, found[i]!)).map((c) => git.shownPath(c.path));
}

/**
 * Delete, then write: the private index ends up holding the target exactly. A submodule's new
 * commit goes into the index only: its work tree (a repository of its own) is never written.
 */
async function applyChanges(
  tree: PrivateWorkTree,
  all: git.TreeChange[],
  keep: Set<string>,
  /** The tree the changes lead to; null: the two-process way, which takes any index (a failed switch's put back). */
  to: string | null,
  hidden = new Set<string>(),
): Promise<void> {
  const changes = all.filter((c) => !git.isSubmodule(c));
  // A few files: one git process instead of two, the usual rewind of a few edits.
  if (
    to !== null &&
    changes.length === all.length &&
    changes.length <= FEW_PATHS &&
    restoreTakes(changes, keep, hidden)
  ) {
    await git.restorePaths(
      tree.root,
      tree.indexFile,
      to,
      changes.map((c) => c.path),
    );
    return;
  }
  // Synchronously, a batch at a time (see `lstatAll`): awaited one by one, each deletion and each
  // folder tried was a round trip through the thread pool.
  for (const [i, change] of changes.filter((c) => c.status === "D" && !keep.has(c.path)).entries()) {
    if (i > 0 && i % SYNC_BATCH === 0) await nextTurn();
    rmSync(onDisk(tree.root, change.path), { force: true });
    pruneEmptyParents(tree.root, change.path);
  }
  await git.setIndexEntries(tree.root, tree.indexFile, all);
  await git.checkoutPaths(
    tree.root,
    tree.indexFile,
    changes.filter((c) => c.status !== "D").map((c) => c.path),
  );
}

/**
 * Whether `git restore` makes exactly these changes: a deletion it makes only of a path the index
 * holds (not a file a later turn ignored, see unhidden-files.ts), and only from the disk too (not a
 * file left there, ignored at the target); and no file where the other side has a folder, which
 * restore cannot swap.
 */
function restoreTakes(changes: git.TreeChange[], keep: Set<string>, hidden: Set<string>): boolean {
  const deleted = changes.filter((c) => c.status === "D");
  if (deleted.some((c) => keep.has(c.path) || hidden.has(c.path))) return false;
  const written = changes.filter((c) => c.status !== "D");
  const inside = (a: string, b: string) => a.startsWith(`${b}/`);
  return !deleted.some((d) => written.some((w) => inside(w.path, d.path) || inside(d.path, w.path)));
}

/** Up to this many files, `applyChanges` has git restore them (see git.restorePaths). */
const FEW_PATHS = 8;

/** A folder emptied by the deletions goes too, as git checkout would do; one with anything left stays. */
function pruneEmptyParents(root: string, rel: string): void {
  for (let dir = parentOf(rel); dir !== ""; dir = parentOf(dir)) {
    try {
      rmdirSync(onDisk(root, dir));
    } catch {
      return; // not empty (or already gone)
    }
  }
}

/** The same changes, the other way round: what puts the touched paths back. */
function reversed(changes: git.TreeChange[]): git.TreeChange[] {
  const flip = { A: "D", D: "A", M: "M", T: "T" } as const;
  return changes.map((c) => ({
    status: flip[c.status],
    path: c.path,
    oldMode: c.mode,
    oldBlob: c.blob,
    mode: c.oldMode,
    blob: c.oldBlob,
  }));
}

/** Why a switch cannot be made safely (an ignored file of the user's in the way, a submodule swap), or null. */
export function unsafeSwitch(what: string, f: { inTheWay: string[]; submoduleSwaps: string[] }): UserError | null {
  if (f.submoduleSwaps.length > 0) {
    return new UserError(
      `cannot rewrite the work tree to ${what}: ${f.submoduleSwaps.join(", ")} is a submodule on one side and a file or folder on the other`,
      "nudge never deletes a submodule's work tree; move it yourself, then run the command again; nothing was changed",
    );
  }
  if (f.inTheWay.length > 0) {
    return new UserError(
      `cannot rewrite the work tree to ${what}: ignored ${f.inTheWay.length === 1 ? "file" : "files"} in the way: ${f.inTheWay.slice(0, 5).join(", ")}`,
      "move those out of the way (they are .gitignore'd, so no snapshot holds them), then run the command again; nothing was changed",
    );
  }
  return null;
}

/** The changes from one tree to another, checked: refused (UserError) when they cannot be made safely. */
export async function plannedSwitch(root: string, from: string, to: string, what: string): Promise<git.TreeChange[]> {
  const changes = await git.changedPaths(root, from, to);
  const refusal = unsafeSwitch(what, {
    inTheWay: await pathsInTheWay(root, changes),
    submoduleSwaps: submoduleSwaps(changes),
  });
  if (refusal) throw refusal;
  return changes;
}

export interface Switch {
  /** The tree the work tree holds now (the private index holds it too). */
  from: string;
  to: string;
  /** What `to` is, for messages ("turn 2"). */
  what: string;
  /** From `from` to `to`, as planned (and checked: nothing in the way, no submodule swap). */
  changes: git.TreeChange[];
  /** Deletions that leave the file on disk (ignored at `to`): it only leaves the index. */
  keepOnDisk?: Set<string>;
  /** Deletions of files `from` does not hold, so neither does the index (a later turn ignored them, see unhidden-files.ts). */
  hidden?: Set<string>;
}

/**
 * Switch the work tree and check the result, path by path.
 * - Before writing, every path to be touched must still hold what `from` says (a file edited since
 *   the capture is never overwritten).
 * - After writing, every path touched must hold what `to` says. The rest of the work tree was not
 *   touched, and nothing else writes it meanwhile (the caller holds the work tree's lock).
 * - On a mismatch (another program writing meanwhile), whatever is on disk is saved under a
 *   backup ref first, then only the paths this switch touched are put back.
 */
export async function switchVerified(tree: PrivateWorkTree, s: Switch): Promise<void> {
  if (s.from === s.to || s.changes.length === 0) return;
  const keep = s.keepOnDisk ?? new Set<string>();
  const files = s.changes.filter((c) => !git.isSubmodule(c)); // a submodule's files are never written, so never checked
  const changedSince = await pathsChangedSince(tree.root, files, { acceptWritten: true });
  if (changedSince.length > 0) {
    throw new UserError(
      `files changed while the rewind was being prepared: ${changedSince.slice(0, 5).join(", ")}`,
      "nothing was changed; run the command again (and pause whatever is writing into the repository)",
    );
  }
  let failure: string;
  try {
    faultPoint("switch-before-write");
    await applyChanges(tree, s.changes, keep, s.to, s.hidden);
    await faultPause("switch-after-write");
    const wrong = await pathsChangedSince(
      tree.root,
      reversed(files.filter((c) => !(c.status === "D" && keep.has(c.path)))),
    );
    if (wrong.length === 0) {
      await tree.index?.holds(s.to);
      return;
    }
    // git leaves a file it cannot unlink (read-only, immutable) with a warning and exit 0: found here.
    failure = `the work tree did not match ${s.what} after writing it (${wrong.slice(0, 3).join(", ")}: not writable there, or written by another program meanwhile)`;
  } catch (error) {
    failure = `cannot rewrite the work tree to ${s.what}: ${errorMessage(error)}`;
  }
  await tree.index?.forget();
  const saved = await saveWhatIsThere(tree);
  // Put back as far as it goes; then what is on disk says whether every touched file is as before
  // (a file that could not be changed at all, read-only or immutable, was never changed either).
  await applyChanges(tree, reversed(s.changes), new Set(), null).catch(() => undefined);
  const restored = await pathsChangedSince(tree.root, files).then(
    (left) => left.length === 0,
    () => false,
  );
  throw new UserError(
    `${failure}; ${restored ? "the files it touched were put back" : "not every file it touched could be put back"}`,
    saved
      ? `the work tree as it was found is saved as ${saved} (git checkout ${saved} -- <path> restores a file)`
      : "run: nudge session rewind --undo",
  );
}

/** Keep whatever a failed switch found on disk under a backup ref, so putting things back loses nothing. */
async function saveWhatIsThere(tree: PrivateWorkTree): Promise<string | null> {
  try {
    const { tree: found } = await git.stageAll(tree.root, tree.indexFile, tree.exclude);
    return await keepBackup(
      tree.root,
      found,
      null,
      "nudge: the work tree as a failed rewind found it",
      "failed-switch",
    );
  } catch {
    return null;
  }
}
