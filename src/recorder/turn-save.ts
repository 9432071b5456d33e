/**
 * Step 2 of a turn's end (see session-recorder.ts): from a captured tree to a saved turn — the
 * snapshot commits (your edits before the turn, then the turn), the session's ref, the patches,
 * and the copy of claude's transcript.
 */
import path from "node:path";
import { writeFileAtomic } from "../store/atomic-write.js";
import type { Manifest, PatchInfo, PendingTurn, Snapshot, Turn, TurnResult } from "../store/manifest-schema.js";
import { patchName } from "../store/store.js";
import { faultPause } from "../base/fault-injection.js";
import type { RecordingGit } from "../snapshot/git-channels.js";
import * as git from "../snapshot/git.js";
import { editsMessage, startMessage, turnMessage } from "../snapshot/snapshot-message.js";
import { keepSnapshot, patchBetween, sessionRef } from "../snapshot/snapshotter.js";
import type { LogPosition } from "./conversation-log.js";
import type { TranscriptSync } from "./transcript-sync.js";
import { resultSummary, type TurnFollower } from "./turn-follower.js";

export interface SaveContext {
  manifest: Manifest;
  dir: string;
  /** The newest commit of the session's chain (null before turn 0: its parent is the base commit). */
  parentCommit: string | null;
  transcripts: TranscriptSync;
  /** The recording's long-lived git processes (its patches and ref), when it keeps them. */
  git?: RecordingGit;
  /** claude's cumulative cost at the previous result of this process. */
  processCostBefore?: number;
  /** Other recordings live in the work tree between two times (see work-tree-recordings.ts). */
  sharedWith?: (from: string, to: string) => Promise<string[]>;
  warn: (message: string) => void;
}

export interface EndedTurn {
  begin: PendingTurn;
  follower: TurnFollower;
  /** The tree the turn started from (the user's edits, if any, else the previous turn's). */
  baseTree: string;
  tree: string;
  head: string | null;
  toLine: number;
  toByte: number;
  toInput: number;
  endedAt: string;
  result?: TurnResult | null;
  /** Claude's own UI: the transcript is copied up to here (where this turn's part of it ends). */
  transcriptUpTo?: number;
}

export async function saveTurn(ctx: SaveContext, t: EndedTurn): Promise<Turn> {
  const { manifest } = ctx;
  const root = manifest.repo.root;
  const ref = sessionRef(manifest.id);
  const previous = manifest.turns.at(-1)!;
  let parent = ctx.parentCommit ?? previous.snapshot.commit;
  let edits: Turn["edits"] = null;
  if (t.begin.editsTree && t.begin.editsTree !== previous.snapshot.tree) {
    const [commit, patch] = await Promise.all([
      git.commitTree(root, t.begin.editsTree, [parent], editsMessage(manifest.id, t.begin.n)),
      writePatch(ctx, root, previous.snapshot.tree, t.begin.editsTree, patchName(t.begin.n, "edits")),
    ]);
    edits = { snapshot: { commit, tree: t.begin.editsTree, ref }, patch };
    parent = commit;
  }
  const [snapshot, patch, transcript, shared] = await Promise.all([
    keepSnapshot(
      root,
      { tree: t.tree, parent, message: turnMessage(manifest.id, t.begin.n, t.begin.prompt), ref },
      ctx.git,
    ).then((commit): Snapshot => ({ commit, tree: t.tree, ref })),
    writePatch(ctx, root, t.baseTree, t.tree, patchName(t.begin.n)),
    copyTranscript(ctx, t.follower.claudeSessionId, t.transcriptUpTo),
    ctx.sharedWith?.(t.begin.startedAt, t.endedAt) ?? [],
  ]);
  // Another recording wrote into the same files meanwhile: whose change is whose cannot be told.
  if (shared.length)
    ctx.warn(
      `turn ${t.begin.n} ran while ${sessions(shared)} also recorded in this work tree: its changes may include theirs (the turn is marked "shared work tree")`,
    );
  await faultPause("after-snapshot");
  const result =
    t.result !== undefined
      ? t.result
      : t.follower.result
        ? resultSummary(t.follower.result, ctx.processCostBefore ?? 0)
        : null;
  return {
    n: t.begin.n,
    prompt: t.begin.prompt,
    status: t.follower.status,
    startedAt: t.begin.startedAt,
    endedAt: t.endedAt,
    lines: { from: t.begin.fromLine, to: t.toLine },
    bytes: { from: t.begin.fromByte ?? 0, to: t.toByte },
    input: { from: t.begin.fromInput ?? 0, to: t.toInput },
    result,
    claudeSessionId: t.follower.claudeSessionId,
    lastAssistantUuid: t.follower.lastAssistantUuid,
    head: t.head,
    snapshot,
    patch,
    edits,
    transcript: transcript?.name ?? null,
    transcriptBytes: transcript?.bytes ?? null,
    compaction: t.follower.compaction,
    ...(result === null && t.follower.tokens ? { tokens: t.follower.tokens } : {}),
    ...(shared.length ? { sharedWith: shared } : {}),
  };
}

function sessions(ids: string[]): string {
  return `session${ids.length === 1 ? "" : "s"} ${ids.join(", ")}`;
}

/** Turn 0, the starting state: HEAD plus the uncommitted work (its patch is from the base commit). */
export async function saveTurnZero(ctx: SaveContext, tree: string, position: LogPosition): Promise<Turn> {
  const { manifest } = ctx;
  const root = manifest.repo.root;
  const base = manifest.repo.baseCommit;
  const baseTree = base ? await git.treeOf(root, base) : await git.emptyTree(root);
  const startedAt = new Date().toISOString();
  const ref = sessionRef(manifest.id);
  const [commit, patch, head] = await Promise.all([
    keepSnapshot(root, { tree, parent: base, message: startMessage(manifest.id), ref }),
    writePatch(ctx, root, baseTree, tree, patchName(0)),
    git.headCommit(root),
  ]);
  return {
    n: 0,
    prompt: null,
    status: "complete",
    startedAt,
    endedAt: new Date().toISOString(),
    lines: { from: position.line, to: position.line },
    bytes: { from: position.byte, to: position.byte },
    input: null,
    result: null,
    claudeSessionId: null,
    lastAssistantUuid: null,
    head,
    snapshot: { commit, tree, ref },
    patch,
    edits: null,
    transcript: null,
    transcriptBytes: null,
    compaction: null,
  };
}

async function writePatch(ctx: SaveContext, root: string, from: string, to: string, file: string): Promise<PatchInfo> {
  const patch = await patchBetween(root, from, to, ctx.git);
  await writeFileAtomic(path.join(ctx.dir, file), patch.bytes);
  const { bytes, sha256, nowIgnored, ...stats } = patch;
  return { file, sha256, bytes: bytes.length, ...stats, ...(nowIgnored.length ? { nowIgnored } : {}) };
}

/** Missing is a warning, not a failure: the conversation is in conversation.jsonl either way. */
async function copyTranscript(ctx: SaveContext, claudeSessionId: string | null, upTo?: number) {
  if (!claudeSessionId) return null;
  const copy = await ctx.transcripts.sync(claudeSessionId, upTo);
  if (!copy)
    ctx.warn(`claude's transcript for ${claudeSessionId} was not found; resuming this turn elsewhere may not work`);
  return copy;
}
