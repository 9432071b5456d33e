/**
 * `nudge session repair`, the plan: a session whose turns.jsonl was deleted, emptied or cut
 * short (its header counts more turns than it holds, or its snapshot ref reaches further) gets
 * the missing turn records rebuilt from what still exists: the snapshot chain under its ref, the
 * patches in changes/, conversation.jsonl and input.jsonl with their timings. The turns the
 * journal still holds are kept byte for byte; a patch file that is gone is made again from the
 * snapshots. Nothing is written here (see repair-apply.ts).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { readConversation, readInput } from "../store/conversation-reader.js";
import { journalSchemas, type ManifestHeader, type PatchInfo, type Turn } from "../store/manifest-schema.js";
import { bundleDir, bundleFiles, journalDamage, readJournalState, resolveId, type Store } from "../store/store.js";
import { UserError } from "../base/errors.js";
import * as git from "../snapshot/git.js";
import { patchStats, sha256 } from "../snapshot/patch-stats.js";
import { sessionRef } from "../snapshot/snapshotter.js";
import { chainTurns } from "./repair-chain.js";
import { patchFile, rebuildTurns } from "./repair-turns.js";
import { findCopy, readCopy } from "../store/transcript-copy.js";

export interface RepairPlan {
  id: string;
  dir: string;
  /** How the journal was found: "is missing", "is empty", "holds 1 turn". */
  damage: string;
  /** The turns the header counted (after the starting state). */
  headerTurns: number;
  ref: string;
  /** The commit the session's ref pointed at when planned: the apply checks it has not moved. */
  tip: string;
  /** The turns the journal still holds, kept as they are. */
  kept: Turn[];
  rebuilt: Turn[];
  /** Patch files that are gone, made again from the snapshots. */
  patches: Array<{ file: string; bytes: Buffer }>;
  /** The journal as it is (its complete lines); the rebuilt records are appended to it. */
  keptText: string;
  header: ManifestHeader;
}

/** What a repair would write; refused (UserError) when there is nothing to repair or nothing to rebuild from. */
export async function planRepair(store: Store, idOrPrefix: string): Promise<RepairPlan> {
  const id = await resolveId(store, idOrPrefix);
  const dir = bundleDir(store, id);
  const state = await readJournalState(dir);
  if (!state)
    throw new UserError(
      `session ${id} is in bundle format 1, which has no turns.jsonl to repair`,
      "its turns are in its manifest.json; nothing was changed",
    );
  const { header } = state;
  // HEAD's reflog is the session's work tree's own (a linked worktree has its own HEAD): read
  // there while that folder is still a work tree of this repository.
  const there = await git.repoLocation(header.repo.root).catch(() => null);
  const root = there?.commonDir === store.commonDir ? header.repo.root : store.repoRoot;
  const ref = sessionRef(id);
  const tip = await git.refCommit(root, ref);
  if (!tip) {
    throw new UserError(
      `session ${id}'s snapshot ref ${ref} is gone: there is nothing to rebuild its turns from`,
      "restore the session from an export if you have one; nothing was changed",
    );
  }
  const baseTree = header.repo.baseCommit ? await git.treeOf(root, header.repo.baseCommit) : await git.emptyTree(root);
  const chain = chainTurns(await git.commitChain(root, tip, header.repo.baseCommit), ref, baseTree);
  // A ref moved onto the base commit (or behind it) walks to no commit at all: no turn 0 to start from.
  if (chain.length === 0) {
    throw new UserError(
      `${ref} points at ${tip.slice(0, 10)}, which holds no snapshot of session ${id}`,
      `the snapshot chain is not one nudge wrote; nothing was changed (git log ${ref} shows it)`,
    );
  }
  const kept = state.folded.turns;
  for (const t of kept) {
    if (chain[t.n]?.commit !== t.snapshot.commit && chain[t.n]?.commit !== undefined) {
      throw new UserError(
        `turn ${t.n} in ${bundleFiles(dir).journal} is not the snapshot ${ref} holds for it`,
        "the journal and the snapshots disagree; nothing was changed",
      );
    }
  }
  const last = kept.at(-1)?.n ?? -1;
  const missing = chain.filter((c) => c.n > last);
  if (state.saved >= header.summary.turns) {
    if (missing.length === 0)
      throw new UserError(
        `session ${id}'s turn journal is whole (turns 0 to ${last}, as its snapshots); nothing to repair`,
        `see it with: nudge session show ${id}`,
      );
    // A turn snapshotted just before nudge stopped is in the journal as unsaved: the next run saves it.
    const unsaved = new Set(state.folded.unsaved.map((u) => u.n));
    if (missing.every((c) => unsaved.has(c.n))) {
      throw new UserError(
        `session ${id}'s turn journal is whole; turn ${missing.at(-1)!.n} was snapshotted but not saved when nudge stopped`,
        `the next run saves it: nudge claude run -r ${id}`,
      );
    }
  }
  const files = bundleFiles(dir);
  const { patches, regenerated } = await readPatches(root, dir, missing);
  const rebuilt = rebuildTurns({
    ref,
    baseCommit: header.repo.baseCommit,
    chain: missing,
    before: kept.at(-1) ?? null,
    patches,
    conversation: await readConversation(dir),
    input: await readInput(dir),
    transcripts: await transcriptCopies(files.transcripts),
    headMoves: await git.headMoves(root),
    now: new Date().toISOString(),
  });
  for (const t of rebuilt) journalSchemas().TurnRecordSchema.parse({ type: "turn", ...t }); // never plan a line a reader would refuse
  return {
    id,
    dir,
    damage: journalDamage(state),
    headerTurns: header.summary.turns,
    ref,
    tip,
    kept,
    rebuilt,
    patches: regenerated,
    keptText: state.text,
    header,
  };
}

/** Each turn's patch (and its edits' patch) as its file says, or made again from the snapshots when the file is gone. */
async function readPatches(root: string, dir: string, chain: ReturnType<typeof chainTurns>) {
  const patches = new Map<string, PatchInfo>();
  const regenerated: RepairPlan["patches"] = [];
  const wanted = chain.flatMap((c) => [
    ...(c.edits ? [{ file: patchFile(c.n, "edits"), from: c.from, to: c.edits.tree }] : []),
    { file: patchFile(c.n), from: c.edits?.tree ?? c.from, to: c.tree },
  ]);
  for (const w of wanted) {
    const onDisk: Buffer | null = await fs.readFile(path.join(dir, w.file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    const bytes = onDisk ?? (w.from === w.to ? Buffer.alloc(0) : await git.diffTrees(root, w.from, w.to));
    if (!onDisk) regenerated.push({ file: w.file, bytes });
    patches.set(w.file, { file: w.file, sha256: sha256(bytes), bytes: bytes.length, ...patchStats(bytes) });
  }
  return { patches, regenerated };
}

/** The transcript copies in the bundle, read whole (a repair is rare; it needs their lines). */
async function transcriptCopies(folder: string): Promise<Map<string, Buffer>> {
  const copies = new Map<string, Buffer>();
  const names = await fs.readdir(folder).catch(() => [] as string[]);
  // Compressed (`<id>.jsonl.gz`) or an old bundle's plain copy; a member a killed append left half written is not read.
  for (const name of new Set(names.flatMap((n) => /^([A-Za-z0-9_-]{1,128}\.jsonl)(?:\.gz)?$/.exec(n)?.[1] ?? []))) {
    const copy = await findCopy(path.dirname(folder), `claude/${name}`);
    if (copy) copies.set(`claude/${name}`, await readCopy(copy));
  }
  return copies;
}

/** What the plan was computed from: the ref's tip, the journal as it was, the snapshots and the patches to make. */
export function repairFingerprint(p: RepairPlan): unknown {
  return [
    p.tip,
    p.keptText,
    p.rebuilt.map((t) => `${t.n}:${t.snapshot.commit}`).join(),
    p.patches.map((f) => f.file).join(),
  ];
}
