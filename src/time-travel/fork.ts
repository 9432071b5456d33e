/**
 * A fork is a new session whose history is turns 0..N of another: the conversation up to the
 * end of turn N (bytes and timing), those turns' patches, transcripts and snapshot refs. Its next
 * run resumes claude at turn N's last assistant message; the original is never written to.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { pathExists } from "../base/file-exists.js";
import { MANIFEST_FORMAT, turnSteps, type Manifest, type Turn } from "../store/manifest-schema.js";
import { copyCompressedPrefix, findCopy, GZ_SUFFIX, readMembers } from "../store/transcript-copy.js";
import { bundleDir, bundleFiles, newSessionId, writeBundle, type Store, type StoredSession } from "../store/store.js";
import { shareImages } from "../store/image-store.js";
import { refuseLinksWithin } from "../store/bundle-links.js";
import { streamOffsetOfLine } from "../store/stream-range.js";
import { copyStreamPrefix } from "../store/piece-writing.js";
import { summaryOf } from "../store/summary.js";
import type { Work } from "../store/cut-off-work.js";
import { faultPoint } from "../base/fault-injection.js";
import { sessionRef } from "../snapshot/snapshotter.js";
import { setNudgeRef } from "../snapshot/loose-writes.js";
import { deleteRefs } from "../snapshot/git.js";
import { resumePoint, turnOf } from "../store/turn-lookup.js";

export interface ForkResult {
  dir: string;
  manifest: Manifest;
}

type ForkRepo = { root: string; cwd: string; branch: string | null; worktree?: string | null };

/** Make the fork's bundle. Where its code lives (in place, a worktree) is the caller's choice via `repo`. */
export async function forkBundle(
  store: Store,
  source: StoredSession,
  turnNumber: number,
  repo: ForkRepo = source.manifest.repo,
  /** A journal to note each step in first (a fork into a worktree: undone whole if killed). */
  work?: Work,
  /**
   * Started once the fork's folder is made, and built meanwhile: the fork is put in place only
   * once it is done, and not at all if it fails (a fork's rewind, switching the files).
   */
  alongside?: () => Promise<unknown>,
): Promise<ForkResult> {
  const turn = turnOf(source.manifest, turnNumber);
  const id = newSessionId();
  const dir = bundleDir(store, id);
  // Built under a hidden name and renamed into place whole: a failure leaves no half-made session.
  const building = path.join(path.dirname(dir), `.${id}.building`);
  await work?.will({ kind: "made", path: building });
  await fs.mkdir(building);
  const ready = alongside?.();
  let manifest: Manifest;
  // The fork's own ref keeps its history alive even if the original is removed.
  const ref = { ref: sessionRef(id), commit: turn.snapshot.commit };
  let refSet = false;
  try {
    manifest = await buildFork(source, turn.n, id, building, repo);
    await ready;
    await work?.will({ kind: "refs", refs: [ref] });
    const here = source.manifest.repo.root === store.repoRoot ? store.commonDir : undefined;
    await setNudgeRef(source.manifest.repo.root, ref.ref, ref.commit, here);
    refSet = true;
    faultPoint("fork-building");
    await work?.will({ kind: "made", path: dir });
    await fs.rename(building, dir);
  } catch (error) {
    await fs.rm(building, { recursive: true, force: true });
    // No fork, no ref of its own left pointing at nothing anyone lists.
    if (refSet) await deleteRefs(source.manifest.repo.root, [ref.ref]).catch(() => undefined);
    throw error;
  }
  return { dir, manifest };
}

async function buildFork(source: StoredSession, n: number, id: string, dir: string, repo: ForkRepo): Promise<Manifest> {
  const turn = source.manifest.turns[n]!;
  const from = bundleFiles(source.dir);
  const to = bundleFiles(dir);
  // Copied and hard-linked whole below: a link's target would become a plain file of the fork, which an export then carries.
  await refuseLinksWithin(source.dir);
  await fs.mkdir(to.changes);
  await fs.mkdir(to.transcripts);

  const ref = sessionRef(id);
  const turns = source.manifest.turns.slice(0, turn.n + 1).map((t) => ({
    ...t,
    snapshot: { ...t.snapshot, ref },
    ...(t.edits ? { edits: { ...t.edits, snapshot: { ...t.edits.snapshot, ref } } } : {}),
  }));
  const inputLines =
    turn.input?.to ?? source.manifest.turns.slice(0, n + 1).reduce((most, t) => Math.max(most, t.input?.to ?? 0), 0);
  const patches = turns.flatMap(turnSteps).map((s) => s.patch.file);
  const at = new Date().toISOString();
  const manifest: Manifest = {
    ...source.manifest,
    format: MANIFEST_FORMAT,
    id,
    createdAt: at,
    updatedAt: at,
    state: "complete",
    repo: { ...source.manifest.repo, ...repo },
    parent: { id: source.manifest.id, turn: turn.n },
    // A fork is made here, by you: an imported session's origin is its parent's, not the fork's.
    origin: null,
    resume: resumeAt(source.manifest, turn.n),
    rewoundTo: null,
    summary: summaryOf(turns),
    turns,
    unsaved: [],
  };
  // Every file at once, each its own: the copies queue on libuv's threads instead of waiting one by one.
  // All settled before a failure is thrown: the caller removes the folder, and nothing may still be writing in it.
  const copied = await Promise.allSettled([
    // The logs up to the end of turn n: copied in the kernel, then cut (never read into memory).
    // The stream's finished pieces are linked, not copied; the rest up to the turn's end becomes one new piece.
    (async () =>
      copyStreamPrefix(source.dir, dir, turn.bytes?.to ?? (await streamOffsetOfLine(source.dir, turn.lines.to))))(),
    (async () => copyPrefix(from.timing, to.timing, await offsetOfLine(from.timing, turn.lines.to)))(),
    (async () => copyPrefix(from.input, to.input, await offsetOfLine(from.input, inputLines)))(),
    (async () => copyPrefix(from.inputTiming, to.inputTiming, await offsetOfLine(from.inputTiming, inputLines)))(),
    fs.writeFile(to.stderr, ""),
    shareImages(source.dir, dir),
    ...patches.map((file) => fs.copyFile(path.join(source.dir, file), path.join(dir, file))),
    copyTranscripts(source, turns, dir),
    // Its journal and header too: nothing reads a fork's folder before it is renamed into place.
    writeBundle(dir, manifest),
  ]);
  const failed = copied.find((c) => c.status === "rejected");
  if (failed) throw failed.reason;
  return manifest;
}

/**
 * claude's transcripts as they were at the end of the fork's last turn (each cut at the length
 * recorded then), with their side folders. The fork resumes from its own copy if claude's is gone.
 */
async function copyTranscripts(source: StoredSession, turns: Turn[], dir: string): Promise<void> {
  const lengths = new Map<string, number | null>();
  for (const t of turns) if (t.transcript) lengths.set(t.transcript, t.transcriptBytes ?? null);
  for (const [name, bytes] of lengths) {
    const copy = await findCopy(source.dir, name);
    if (!copy) continue;
    // Compressed in the fork too (an old bundle's plain copy as well); cut at a turn's end, the members are copied as they are.
    await copyCompressedPrefix(
      copy,
      path.join(dir, name + GZ_SUFFIX),
      bytes ?? (copy.compressed ? (await readMembers(copy.file)).bytes : (await fs.stat(copy.file)).size),
    );
    const side = path.join(source.dir, name).replace(/\.jsonl$/, "");
    if (await pathExists(side)) await fs.cp(side, path.join(dir, name.replace(/\.jsonl$/, "")), { recursive: true });
  }
}

/** Copy the first `bytes` bytes of a file (a missing file gives an empty one). */
async function copyPrefix(from: string, to: string, bytes: number): Promise<void> {
  try {
    await fs.copyFile(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    await fs.writeFile(to, "");
    return;
  }
  await fs.truncate(to, bytes);
}

/** Byte offset where line `n` (0-based) starts; the file's length when it has fewer lines. Reads in blocks. */
async function offsetOfLine(file: string, n: number): Promise<number> {
  if (n === 0) return 0;
  const handle = await fs.open(file, "r").catch(() => null);
  if (!handle) return 0;
  try {
    const block = Buffer.alloc(1 << 20);
    let seen = 0;
    for (let offset = 0; ;) {
      const { bytesRead } = await handle.read(block, 0, block.length, offset);
      if (bytesRead === 0) return offset;
      for (let i = block.indexOf(0x0a); i !== -1 && i < bytesRead; i = block.indexOf(0x0a, i + 1)) {
        if (++seen === n) return offset + i + 1;
      }
      offset += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** Where a fork's worktree goes and at which commit, checked (the path free, outside the work tree); nothing made. */
export async function planWorktreeFork(
  source: StoredSession,
  turnNumber: number,
  dir: string,
): Promise<{ root: string; cwd: string; commit: string }> {
  const turn = turnOf(source.manifest, turnNumber);
  const commit = turn.head ?? source.manifest.repo.baseCommit;
  if (!commit)
    throw new UserError(
      "the repository had no commit when this turn was recorded",
      "fork in place instead (without --worktree)",
    );
  const root = path.resolve(dir);
  if (await pathExists(root)) throw new UserError(`${root} already exists`, "pick a new path for --worktree");
  const repoRoot = source.manifest.repo.root;
  if (root === repoRoot || root.startsWith(`${repoRoot}${path.sep}`)) {
    // Inside the work tree, every later snapshot of it would take the fork in as a nested repository.
    throw new UserError(
      `${root} is inside the repository's work tree`,
      `pick a path outside it, e.g. ${path.join(path.dirname(repoRoot), path.basename(root))}`,
    );
  }
  const relativeCwd = path.relative(source.manifest.repo.root, source.manifest.repo.cwd);
  return { root, cwd: path.join(root, relativeCwd), commit };
}

function resumeAt(manifest: Manifest, n: number): Manifest["resume"] {
  const point = resumePoint(manifest, n);
  return point && { claudeSessionId: point.claudeSessionId, atUuid: point.atUuid };
}
