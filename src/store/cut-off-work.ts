/**
 * Work a command does outside its final place — an import's unpacked archive and staged session,
 * an export's temp file, a fork's new worktree — in a folder of the store's `work/` named after
 * the command and its pid (`import-<pid>-<random>`), with a journal (`journal.json`) of what it
 * put elsewhere, written *before* each step. A kill -9 leaves the folder; the next command that
 * opens the store (cut-off-recovery.ts), or `nudge session gc`, finds it by its dead pid, undoes the
 * journal's steps newest first (each undo does nothing when its step never happened), and removes
 * the folder. So a killed command leaves nothing behind that nudge does not clear, and nothing
 * half-installed; what was used since (a session recorded into) is kept, never undone.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import * as z from "../base/zod.js";
import * as git from "../snapshot/git.js";
import { ensureDir, writeFileAtomic } from "./atomic-write.js";
import { isLocked, isRunning } from "./locks.js";
import type { Store } from "./store.js";

const Step = z.discriminatedUnion("kind", [
  /** A file or folder made (undo: remove it). */
  z.object({ kind: z.literal("made"), path: z.string() }),
  /** A file made longer in place, by a rename over it (undo: cut it back to its size). */
  z.object({ kind: z.literal("extended"), path: z.string(), size: z.number() }),
  /** A folder made where there was none (undo: remove it if empty). */
  z.object({ kind: z.literal("folder"), path: z.string() }),
  /** Moved (undo: move back). */
  z.object({ kind: z.literal("renamed"), from: z.string(), to: z.string() }),
  /** Refs created (undo: delete those still at their commit). */
  z.object({ kind: z.literal("refs"), refs: z.array(z.object({ ref: z.string(), commit: z.string() })) }),
  /** Refs moved (undo: move back those still moved). */
  z.object({
    kind: z.literal("moved-refs"),
    moves: z.array(z.object({ from: z.string(), to: z.string(), commit: z.string() })),
  }),
  /**
   * A git worktree registered (undo: `git worktree remove --force`, then prune). `admin`: git's
   * folders under <common dir>/worktrees/ before it was added; one added since that names this
   * path, or nothing, is this one's, removed even when git cannot read it (killed mid-add).
   */
  z.object({ kind: z.literal("worktree"), path: z.string(), admin: z.optional(z.array(z.string())) }),
  /**
   * A session now in place, its ref at `commit`. Once the ref moved (a turn recorded since) or a
   * nudge holds its lock, the session is someone's work: nothing of this journal is undone.
   */
  z.object({ kind: z.literal("session"), dir: z.string(), ref: z.string(), commit: z.string() }),
]);
type WorkStep = z.infer<typeof Step>;
const JournalSchema = z.object({ what: z.string(), steps: z.array(Step), done: z.boolean() });
export type Journal = z.infer<typeof JournalSchema>;

const NAME = /^([a-z]+)-(\d+)-[A-Za-z0-9]{6}$/;

export interface Work {
  dir: string;
  /** Journal a step before taking it. */
  will(step: WorkStep): Promise<void>;
  /** Undo every journalled step, newest first (after a failure in this process). */
  rollBack(): Promise<void>;
  /** The work is in place: nothing to undo any more; the folder goes. */
  finish(): Promise<void>;
}

function workRoot(store: Store): string {
  return path.join(store.dir, "work");
}

/** A fresh work folder for `kind` (import, export, fork). Cut-off work of the same kind is cleared first. */
export async function beginWork(store: Store, kind: string, what: string): Promise<Work> {
  await clearCutOffWork(store, kind);
  await ensureDir(workRoot(store));
  const dir = await fs.mkdtemp(path.join(workRoot(store), `${kind}-${process.pid}-`));
  const journal = path.join(dir, "journal.json");
  const steps: WorkStep[] = [];
  const save = (done: boolean) => writeFileAtomic(journal, JSON.stringify({ what, steps, done }) + "\n");
  await save(false);
  return {
    dir,
    async will(step) {
      steps.push(step);
      await save(false);
    },
    async rollBack() {
      await undo(store, steps);
      steps.length = 0;
      await save(false);
    },
    async finish() {
      // Marked done first: a kill during the removal must not undo a finished install.
      await save(true);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

export interface CutOff {
  dir: string;
  kind: string;
  what: string;
  /** Steps to undo (none when it had finished, or never got past its own folder). */
  steps: number;
}

/** Work folders whose process is gone (of one kind, or all). */
export async function findCutOffWork(store: Store, kind?: string): Promise<CutOff[]> {
  const found: CutOff[] = [];
  for (const name of await fs.readdir(workRoot(store)).catch(() => [] as string[])) {
    const m = NAME.exec(name);
    if (!m || (kind && m[1] !== kind)) continue;
    const pid = Number(m[2]);
    // The folder's name holds only the pid: alive is all that can be asked (a start time read now would be compared with itself).
    if (pid === process.pid || isRunning({ pid, started: null })) continue;
    const journal = await readJournal(path.join(workRoot(store), name));
    found.push({
      dir: path.join(workRoot(store), name),
      kind: m[1]!,
      what: journal?.what ?? `a ${m[1]} cut off`,
      steps: journal && !journal.done ? journal.steps.length : 0,
    });
  }
  return found;
}

/** What clearing a cut-off work did: undone; kept (a session it installed was used since); or nothing (another process clears it). */
export type Cleared = { outcome: "undone" | "kept" | "none"; journal: Journal | null };

/**
 * Undo what a dead process's work left, and remove its folder. The folder is first renamed to
 * this process's pid (one rename wins): of two nudges that find it, one clears it, and a kill
 * while clearing leaves it to the next, under a pid that is dead again.
 */
export async function clearCutOff(store: Store, dir: string): Promise<Cleared> {
  const m = NAME.exec(path.basename(dir));
  const mine = m ? path.join(path.dirname(dir), path.basename(dir).replace(`-${m[2]}-`, `-${process.pid}-`)) : dir;
  if (mine !== dir) {
    const claimed = await fs.rename(dir, mine).then(
      () => true,
      (error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? false : Promise.reject(error)),
    );
    if (!claimed) return { outcome: "none", journal: null };
  }
  const journal = await readJournal(mine);
  let outcome: Cleared["outcome"] = "none";
  if (journal && !journal.done && journal.steps.length)
    outcome = (await inUse(store, journal.steps)) ? "kept" : (await undo(store, journal.steps), "undone");
  await fs.rm(mine, { recursive: true, force: true });
  return { outcome, journal };
}

export async function clearCutOffWork(store: Store, kind?: string): Promise<void> {
  for (const c of await findCutOffWork(store, kind)) await clearCutOff(store, c.dir);
}

/** A session the work installed that was recorded into since, or is being recorded now: undoing would delete that work. */
async function inUse(store: Store, steps: WorkStep[]): Promise<boolean> {
  for (const step of steps) {
    if (step.kind !== "session") continue;
    const now = await git.refCommit(store.repoRoot, step.ref);
    if (now !== null && now !== step.commit) return true;
    if (await isLocked(path.join(step.dir, "lock"))) return true;
  }
  return false;
}

async function readJournal(dir: string): Promise<Journal | null> {
  try {
    return JournalSchema.parse(JSON.parse(await fs.readFile(path.join(dir, "journal.json"), "utf8")));
  } catch {
    return null; // killed before its first journal write: nothing was done outside the folder
  }
}

async function undo(store: Store, steps: WorkStep[]): Promise<void> {
  const root = store.repoRoot;
  for (const step of [...steps].reverse()) {
    if (step.kind === "made") await fs.rm(step.path, { recursive: true, force: true });
    else if (step.kind === "extended") await fs.truncate(step.path, step.size).catch(() => undefined);
    else if (step.kind === "folder") await fs.rmdir(step.path).catch(() => undefined);
    else if (step.kind === "renamed") await fs.rename(step.to, step.from).catch(() => undefined);
    else if (step.kind === "refs") await git.deleteRefsAt(root, await stillAt(root, step.refs));
    else if (step.kind === "moved-refs") {
      const moved = new Set(
        (
          await stillAt(
            root,
            step.moves.map((m) => ({ ref: m.to, commit: m.commit })),
          )
        ).map((r) => r.ref),
      );
      // A name taken again since (by a ref no step of this journal made) is never overwritten: that ref stays where it was moved.
      const taken = new Set(
        (
          await git.listRefs(
            root,
            step.moves.map((m) => m.from),
          )
        ).map((r) => r.ref),
      );
      await git.moveRefs(
        root,
        step.moves
          .filter((m) => moved.has(m.to) && !taken.has(m.from))
          .map((m) => ({ from: m.to, to: m.from, commit: m.commit })),
      );
    } else if (step.kind === "worktree") await removeWorktree(store, step.path, step.admin);
  }
}

/** The refs that exist and point at the commit the step recorded (a ref since moved is someone else's now). */
async function stillAt(
  root: string,
  refs: Array<{ ref: string; commit: string }>,
): Promise<Array<{ ref: string; commit: string }>> {
  if (refs.length === 0) return [];
  const now = new Map(
    (
      await git.listRefs(
        root,
        refs.map((r) => r.ref),
      )
    ).map((r) => [r.ref, r.commit]),
  );
  return refs.filter((r) => now.get(r.ref) === r.commit);
}

/**
 * A worktree git may have left locked ("initializing") when killed inside `worktree add`: removed
 * and pruned, or gone already. Killed before git wrote its admin folder's `commondir`, every git
 * command in the repository fails on it ("failed to read .../commondir") and git cannot remove
 * it itself: that folder goes by hand.
 */
async function removeWorktree(store: Store, dir: string, before: string[] | undefined): Promise<void> {
  const root = store.repoRoot;
  await git.unlockWorktree(root, dir).catch(() => undefined); // prune skips a locked one
  await git.removeWorktree(root, dir).catch(() => undefined);
  await fs.rm(dir, { recursive: true, force: true });
  for (const admin of await addedAdminFolders(store, dir, before)) await fs.rm(admin, { recursive: true, force: true });
  await git.pruneWorktrees(root);
}

/** git's admin folders of the worktree at `dir`: one naming it in its `gitdir`, or (new since `before`) naming nothing. */
async function addedAdminFolders(store: Store, dir: string, before: string[] | undefined): Promise<string[]> {
  const base = path.join(store.commonDir, "worktrees");
  const found: string[] = [];
  for (const name of await fs.readdir(base).catch(() => [] as string[])) {
    const gitdir = (await fs.readFile(path.join(base, name, "gitdir"), "utf8").catch(() => "")).trim();
    const ours = gitdir === path.join(dir, ".git") || (gitdir === "" && before !== undefined && !before.includes(name));
    if (ours) found.push(path.join(base, name));
  }
  return found;
}
