/**
 * A private index that lives as long as a recording (or a rewind): seeded once from the user's
 * index, then kept between turns, so each capture is one `git status` over it (with the
 * untracked cache and the split index) plus staging exactly what changed. That brings a turn's
 * snapshot down to about what `git status` costs, however much uncommitted work accumulates.
 *
 * Correctness never depends on the index being fresh: a tree is always "the index plus every
 * difference git reports against it". What the index decides is which files count as tracked,
 * so it is seeded again whenever the user's index or an ignore source changes.
 *
 * A rewind's index is kept across processes too (`stateFile`): what it was seeded from and the
 * tree it holds are written beside it, with the index file's own stamp. A later process trusts
 * them only while that stamp is unchanged (git writes an index by renaming a new file over it,
 * so any write changes it) and the seed's sources are as they were; the index file itself keeps
 * git's racy-git rule, as it is only ever written by git (the seed keeps the user's index's mtime).
 */
import { promises as fs, statSync, type Stats } from "node:fs";
import path from "node:path";
import { readCacheFile, writeCacheFile } from "../base/cache-file.js";
import * as z from "../base/zod.js";
import * as git from "./git.js";
import { objectsExistHere } from "./loose-objects.js";
import { pathExists } from "../base/file-exists.js";

const StampSchema = z.object({
  ino: z.number(),
  size: z.number(),
  mtimeMs: z.number(),
  ctimeMs: z._default(z.number(), 0),
});
type Stamp = z.infer<typeof StampSchema>;

/** What a kept index holds, for the next process (see the top of this file). */
const KeptStateSchema = z.object({
  /** The index file as it was when this was written: anything else means this is stale. */
  index: StampSchema,
  seededFrom: z.array(z.nullable(StampSchema)),
  tree: z.nullable(z.string().check(z.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/))),
});

export interface PrivateIndexOptions {
  root: string;
  indexFile: string;
  /** Folders left out of every scan (nudge's and claude's own files inside the work tree). */
  exclude: string[];
  /** Whether the untracked cache may be used on this work tree (see `untrackedCacheVerdict`). */
  untrackedCache: boolean;
  /** Keep the index for later processes: where to note what it holds (none: it is this process's alone). */
  stateFile?: string;
  /** The ignore files outside the work tree, when the caller knows them without git (default: `git.ignoreFiles`). */
  ignoreFiles?: () => Promise<string[]>;
}

export interface Capture {
  tree: string;
  /** Files git could not read: left as they were in the previous snapshot (or out, if new). */
  unreadable: string[];
  /** How many paths differed from the index (0: the tree is the previous one, found with one scan). */
  changed: number;
  /** HEAD's commit as the scan saw it (undefined when the scan did not say). */
  head?: string | null;
  /** The branch as the scan saw it, null when detached (undefined when the scan did not say). */
  branch?: string | null;
}

export type Staged = Omit<Capture, "tree"> & { tree: string | null };

export class PrivateIndex {
  /** The tree this index holds: known after a capture, so an unchanged work tree needs no more git. */
  private tree: string | null = null;
  private seededFrom: Array<Stamp | null> | null = null;
  /** A kept index: its file's stamp when this process last knew what it holds (another process may write it since). */
  private knownStamp: Stamp | null = null;
  /** The repository's common git dir, as far as can be told without git (see `stillThere`). */
  private commonDir: Promise<string> | null = null;

  constructor(readonly o: PrivateIndexOptions) {}

  get indexFile(): string {
    return this.o.indexFile;
  }

  /** Has this process staged into it yet (seeded it afresh)? Before that, the file is as the last process left it. */
  get used(): boolean {
    return this.seededFrom !== null;
  }

  /**
   * The tree this index holds as far as is known before a scan (a kept index: as the last process
   * noted it), or null: what the next capture finds unless files changed since.
   */
  async heldTree(): Promise<string | null> {
    if (this.seededFrom === null) await this.resume();
    return this.tree;
  }

  /** The work tree as a tree id (tracked, untracked, not ignored). */
  async capture(): Promise<Capture> {
    const staged = await this.stage();
    const capture = { ...staged, tree: staged.tree ?? (await this.writeTree()) };
    await this.keep();
    return capture;
  }

  /**
   * The work tree's content fixed in this index (its files' blobs written to the object store),
   * the tree id not yet computed: what a turn's end needs before the next prompt may go. `tree` is
   * known when nothing changed; otherwise `writeTree()` gives it, and must run before the next stage.
   */
  async stage(): Promise<Staged> {
    // A kept index another process wrote since (a CLI rewind beside nudge web): what this one remembers of it is stale.
    if (this.o.stateFile && this.seededFrom !== null && !sameStamp(stampOf(this.o.indexFile), this.knownStamp)) {
      this.seededFrom = null;
      this.tree = null;
    }
    if (this.seededFrom === null) await this.resume();
    if (this.seededFrom === null || !(await this.seedStillValid())) {
      await this.seed();
    }
    try {
      return await this.scan();
    } catch {
      // Anything git did not like about the kept index (a file that cannot be read, a shared
      // index gone): the path that always works, from a fresh copy of the user's index.
      return this.captureFromScratch();
    }
  }

  /**
   * The tree the staged index holds. Its entries that stat-matched were never hashed again: if git
   * pruned their blobs since (their snapshots removed, then a gc), write-tree names the first one
   * missing, and only the slow path, from the user's index (whose objects gc keeps), can tell what
   * the files hold. That tree is of the work tree as it is now, a moment after the stage.
   */
  async writeTree(): Promise<string> {
    try {
      this.tree = await git.writeTree(this.o.root, this.o.indexFile, this.o.untrackedCache);
    } catch (error) {
      if (!namesMissingObject(error)) throw error;
      return (await this.captureFromScratch()).tree;
    }
    return this.tree;
  }

  /** The slow, always-correct path: a fresh copy of the user's index, then `git add -A`. */
  async captureFromScratch(): Promise<Capture> {
    await this.seed();
    const staged = await git.stageAll(this.o.root, this.o.indexFile, this.o.exclude);
    this.tree = staged.tree;
    return { tree: staged.tree, unreadable: staged.unreadable, changed: -1 };
  }

  /**
   * After a rewind wrote `tree` into the work tree and this index: what the index now holds, so
   * the next capture can tell "nothing changed" without staging anything.
   */
  async holds(tree: string): Promise<void> {
    this.tree = tree;
    await this.keep();
  }

  /** What the index holds is no longer known (a switch failed halfway): the next capture seeds afresh. */
  async forget(): Promise<void> {
    this.tree = null;
    this.seededFrom = null;
    if (this.o.stateFile) await fs.rm(this.o.stateFile, { force: true });
  }

  /** A kept index: take over what an earlier process noted, if the index is still as it left it. */
  private async resume(): Promise<void> {
    if (!this.o.stateFile) return;
    // A lock git left on it belonged to a process that is gone (the caller holds the lock guarding this index).
    await clearStaleGitLock(`${this.o.indexFile}.lock`);
    const json = parseJson(readCacheFile(this.o.stateFile) ?? "");
    const state = KeptStateSchema.safeParse(json);
    if (!state.success || !sameStamp(stampOf(this.o.indexFile), state.data.index)) return;
    this.seededFrom = state.data.seededFrom;
    this.tree = state.data.tree;
    this.knownStamp = state.data.index;
  }

  /** A kept index: note what it holds now, for the next process. */
  private async keep(): Promise<void> {
    const index = this.o.stateFile && this.seededFrom ? stampOf(this.o.indexFile) : null;
    if (!index) return;
    // A cache: torn or old after a crash, it fails its checks and the index is seeded again.
    const state = JSON.stringify({ index, seededFrom: this.seededFrom, tree: this.tree }) + "\n";
    if (!(await writeCacheFile(this.o.stateFile!, state))) return;
    this.knownStamp = index;
  }

  private async scan(): Promise<Staged> {
    const { root, indexFile, untrackedCache, exclude } = this.o;
    const { paths: changed, head, branch } = await git.changedSinceIndex(root, indexFile, { untrackedCache, exclude });
    if (changed.some(isIgnoreFile)) {
      // An ignore rule changed: which files are tracked must be decided again from the user's index.
      return this.captureFromScratch();
    }
    if (changed.length === 0 && this.tree && (await this.stillThere(this.tree))) {
      return { tree: this.tree, unreadable: [], changed: 0, head, branch };
    }
    // The kept state goes stale by itself: its stamp of the index no longer matches once this writes it.
    this.tree = null;
    await git.stagePaths(root, indexFile, changed, untrackedCache);
    return { tree: null, unreadable: [], changed: changed.length, head, branch };
  }

  /**
   * Whether a tree this index held is still in the repository (a gc may have pruned it since):
   * one stat while it is a loose object, as write-tree leaves it; asked of git only once a gc
   * has packed it or pruned it. The objects folder is guessed from the index's git dir (a linked
   * work tree's `commondir`): a wrong guess costs that one git process, never the answer.
   */
  private async stillThere(tree: string): Promise<boolean> {
    this.commonDir ??= git.indexPath(this.o.root).then(async (index) => {
      const gitDir = path.dirname(index);
      return fs.readFile(path.join(gitDir, "commondir"), "utf8").then(
        (p) => path.resolve(gitDir, p.trim()),
        () => gitDir,
      );
    });
    return (await objectsExistHere(this.o.root, await this.commonDir, [tree], "tree"))[0]!;
  }

  /**
   * Copy the user's index, keeping its mtime: git trusts an entry's stat data only if the file
   * was not modified in the same instant the index was written, and it tells that by comparing
   * with the index file's own mtime. A copy stamped "now" would make such racily clean entries
   * look clean, and a change made in that instant would be missed.
   */
  private async seed(): Promise<void> {
    await clearStaleGitLock(`${this.o.indexFile}.lock`);
    if (this.o.stateFile) await fs.rm(this.o.stateFile, { force: true });
    const stamps = await this.stamps();
    const userIndex = await git.indexPath(this.o.root);
    await fs.mkdir(path.dirname(this.o.indexFile), { recursive: true });
    await fs.rm(this.o.indexFile, { force: true });
    try {
      await fs.copyFile(userIndex, this.o.indexFile);
      const stat = await fs.stat(userIndex);
      await fs.utimes(this.o.indexFile, stat.atime, stat.mtime);
    } catch {
      // No index yet (a fresh repository): an empty private index is the right start.
      await fs.rm(this.o.indexFile, { force: true });
    }
    this.seededFrom = stamps;
    this.tree = null;
  }

  /** The files whose change means the index must be seeded again: the user's index and the global ignore files. */
  private async sources(): Promise<string[]> {
    const ignoreFiles = this.o.ignoreFiles ?? (() => git.ignoreFiles(this.o.root));
    return [await git.indexPath(this.o.root), ...(await ignoreFiles())];
  }

  private async seedStillValid(): Promise<boolean> {
    const now = await this.stamps();
    return now.every((s, i) => sameStamp(s, this.seededFrom![i]));
  }

  private async stamps(): Promise<Array<Stamp | null>> {
    return (await this.sources()).map(stampOf);
  }

  /**
   * At the end of a recording the index goes (the next run seeds afresh). Its shared part stays:
   * shared index files are named by their content, so another private index seeded from the same
   * user index may be using the very same file; `nudge session gc` removes those nothing uses.
   */
  async dispose(): Promise<void> {
    await fs.rm(this.o.indexFile, { force: true });
    if (this.o.stateFile) await fs.rm(this.o.stateFile, { force: true });
  }
}

/**
 * A lock git left on this private index: the caller holds the lock that guards the index (its
 * session's, or its work tree's), so the git that made it belonged to a nudge that is gone. A git
 * still finishing for it (its parent was killed, it was not) gets two seconds; after that the
 * lock is stale, and left alone it would refuse every later turn.
 */
async function clearStaleGitLock(lock: string): Promise<void> {
  for (let waited = 0; waited < 2_000; waited += 100) {
    if (!(await pathExists(lock))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  await fs.rm(lock, { force: true });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null; // torn or damaged: not a state to trust
  }
}

function sameStamp(a: Stamp | null | undefined, b: Stamp | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

function stampOf(file: string): Stamp | null {
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch {
    return null;
  }
  return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs };
}

/**
 * git's words (cache-tree.c) when an index entry names an object the repository does not have.
 * Not translated, unlike the "error: " before them, so that is left out.
 */
function namesMissingObject(error: unknown): boolean {
  return error instanceof Error && /\binvalid object [0-7]{6} [0-9a-f]{40,64} for '/.test(error.message);
}

function isIgnoreFile(bytes: string): boolean {
  return bytes === ".gitignore" || bytes.endsWith("/.gitignore");
}

/**
 * The shared index a split index file points to ("link" extension: the signature, a 4-byte size,
 * then the shared index's object id), checked against the files that exist.
 */
export async function sharedIndexOf(indexFile: string, gitDir: string): Promise<string | null> {
  let data: Buffer;
  try {
    data = await fs.readFile(indexFile);
  } catch {
    return null;
  }
  // The signature can also occur inside a path name: take the first candidate whose file exists.
  for (let at = data.indexOf("link"); at !== -1; at = data.indexOf("link", at + 1)) {
    const size = at + 8 <= data.length ? data.readUInt32BE(at + 4) : 0;
    for (const length of [20, 32]) {
      if (size < length || at + 8 + length > data.length) continue;
      const name = `sharedindex.${data.toString("hex", at + 8, at + 8 + length)}`;
      if (
        await fs.stat(path.join(gitDir, name)).then(
          () => true,
          () => false,
        )
      )
        return name;
    }
  }
  return null;
}
