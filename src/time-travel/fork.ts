/**
 * A fork is a new session whose history is turns 0..N of another: the conversation up to the
 * end of turn N (bytes and timing), those turns' patches, transcripts and snapshot refs. Its next
 * run resumes claude at turn N's last assistant message; the original is never written to.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../errors.js";
import { pathExists } from "../file-exists.js";
import { writeFileAtomic } from "../bundle/atomic-write.js";
import type { Manifest } from "../bundle/manifest-schema.js";
import { bundleDir, bundleFiles, newSessionId, writeManifest, type Store, type StoredSession } from "../bundle/store.js";
import * as git from "../snapshot/git.js";
import { snapshotRef } from "../snapshot/snapshotter.js";
import { resumePoint, turnOf } from "../bundle/turn-lookup.js";

export interface ForkResult {
  dir: string;
  manifest: Manifest;
}

type ForkRepo = { root: string; cwd: string; branch: string | null };

/** Make the fork's bundle. Where its code lives (in place, a worktree) is the caller's choice via `repo`. */
export async function forkBundle(
  store: Store,
  source: StoredSession,
  turnNumber: number,
  repo: ForkRepo = source.manifest.repo,
): Promise<ForkResult> {
  const turn = turnOf(source.manifest, turnNumber);
  const id = newSessionId();
  const dir = bundleDir(store, id);
  // Built under a hidden name and renamed into place whole: a failure leaves no half-made session.
  const building = path.join(path.dirname(dir), `.${id}.building`);
  await fs.mkdir(building);
  let manifest: Manifest;
  try {
    manifest = await buildFork(source, turn.n, id, building, repo);
    await fs.rename(building, dir);
  } catch (error) {
    await fs.rm(building, { recursive: true, force: true });
    throw error;
  }
  await git.updateRefs(source.manifest.repo.root, manifest.turns.map((t) => ({ ref: t.snapshot.ref, commit: t.snapshot.commit })));
  return { dir, manifest };
}

async function buildFork(source: StoredSession, n: number, id: string, dir: string, repo: ForkRepo): Promise<Manifest> {
  const turn = source.manifest.turns[n]!;
  const from = bundleFiles(source.dir);
  const to = bundleFiles(dir);
  await fs.mkdir(to.changes);
  await fs.mkdir(to.transcripts);

  const conversation = await fs.readFile(from.conversation).catch(() => Buffer.alloc(0));
  await writeFileAtomic(to.conversation, conversation.subarray(0, offsetOfLine(conversation, turn.lines.to)));
  const timing = await fs.readFile(from.timing, "utf8").catch(() => "");
  await writeFileAtomic(to.timing, timing.split("\n").slice(0, turn.lines.to).map((t) => `${t}\n`).join(""));
  await fs.writeFile(to.stderr, "");

  const turns = source.manifest.turns.slice(0, turn.n + 1).map((t) => ({ ...t, snapshot: { ...t.snapshot, ref: snapshotRef(id, t.n) } }));
  for (const t of turns) {
    await fs.copyFile(path.join(source.dir, t.patch.file), path.join(dir, t.patch.file));
    if (t.transcript) await fs.copyFile(path.join(source.dir, t.transcript), path.join(dir, t.transcript)).catch(() => undefined);
  }
  const at = new Date().toISOString();
  const manifest: Manifest = {
    ...source.manifest,
    id,
    createdAt: at,
    updatedAt: at,
    state: "complete",
    repo: { ...source.manifest.repo, ...repo },
    parent: { id: source.manifest.id, turn: turn.n },
    resume: resumeAt(source.manifest, turn.n),
    rewoundTo: null,
    pendingTurn: null,
    turns,
  };
  await writeManifest(dir, manifest);
  return manifest;
}

/** Byte offset where line `n` (0-based) starts; the file's length when it has fewer lines. */
function offsetOfLine(data: Buffer, n: number): number {
  let offset = 0;
  for (let i = 0; i < n; i++) {
    const newline = data.indexOf(0x0a, offset);
    if (newline === -1) return data.length;
    offset = newline + 1;
  }
  return offset;
}

/** A new worktree for a fork, at the HEAD recorded with the turn (the snapshot is written on top by the caller). */
export async function worktreeForFork(source: StoredSession, turnNumber: number, dir: string): Promise<{ root: string; cwd: string }> {
  const turn = turnOf(source.manifest, turnNumber);
  const commit = turn.head ?? source.manifest.repo.baseCommit;
  if (!commit) throw new UserError("the repository had no commit when this turn was recorded", "fork in place instead (without --worktree)");
  const root = path.resolve(dir);
  if (await pathExists(root)) throw new UserError(`${root} already exists`, "pick a new path for --worktree");
  const repoRoot = source.manifest.repo.root;
  if (root === repoRoot || root.startsWith(`${repoRoot}${path.sep}`)) {
    // Inside the work tree, every later snapshot of it would take the fork in as a nested repository.
    throw new UserError(`${root} is inside the repository's work tree`, `pick a path outside it, e.g. ${path.join(path.dirname(repoRoot), path.basename(root))}`);
  }
  await git.addWorktree(repoRoot, root, commit);
  const relativeCwd = path.relative(source.manifest.repo.root, source.manifest.repo.cwd);
  return { root, cwd: path.join(root, relativeCwd) };
}

function resumeAt(manifest: Manifest, n: number): Manifest["resume"] {
  const point = resumePoint(manifest, n);
  return point && { claudeSessionId: point.claudeSessionId, atUuid: point.atUuid };
}
