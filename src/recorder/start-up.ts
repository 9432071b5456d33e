/**
 * What a recording does before its first prompt: refuse a bundle whose journal or stream lost
 * turns, snapshot turn 0 of a new session, and save the turns a crash left unsaved.
 */
import type { Manifest, PendingTurn, Turn } from "../store/manifest-schema.js";
import { recordedLineCount } from "../store/conversation-reader.js";
import { damaged, readStream } from "../store/conversation-pieces.js";
import { parseLine, splitLines } from "../claude/ndjson.js";
import { toStreamEvent } from "../claude/stream-events.js";
import { UserError, errorMessage } from "../base/errors.js";
import { pathExists } from "../base/file-exists.js";
import * as git from "../snapshot/git.js";
import { turnsPast } from "../snapshot/snapshotter.js";
import type { LogPosition } from "./conversation-log.js";
import { TurnFollower } from "./turn-follower.js";
import { saveTurn, saveTurnZero } from "./turn-save.js";
import { now, type RecorderState } from "./recorder-state.js";

/**
 * A journal and header both behind the session's ref (restored from an old copy, say): the ref
 * holds turns nothing else names, and recording on would repoint it back over them. A turn whose
 * snapshot was made just before nudge stopped is still in the journal as unsaved: it is recovered.
 */
export async function refuseLostTurns(manifest: Manifest): Promise<void> {
  const last = manifest.turns.at(-1);
  if (!last) return;
  const lost = (await turnsPast(manifest.repo.root, manifest.id, last.snapshot.commit)).filter(
    (n) => !manifest.unsaved.some((u) => u.n === n),
  );
  if (lost.length === 0) return;
  throw new UserError(
    `session ${manifest.id}'s snapshots go on to turn ${Math.max(...lost)}, but its turn journal ends at turn ${last.n}: turns.jsonl was damaged`,
    `nothing was changed; rebuild it from the session's snapshots and logs: nudge session repair ${manifest.id} (--dry-run shows what it would write)`,
  );
}

/**
 * The stream holds every line and byte the session's turns were recorded at. Shorter (a piece of
 * conversation.d gone, conversation.jsonl cut), recording on would put the new turn's lines where
 * those turns' lines were, and every reader would show the wrong ones.
 */
export function requireRecordedStream(dir: string, manifest: Manifest, at: LogPosition): void {
  const lines = recordedLineCount(manifest);
  const bytes = Math.max(
    0,
    ...manifest.turns.map((t) => t.bytes?.to ?? 0),
    ...manifest.unsaved.map((u) => u.ended?.toByte ?? u.fromByte ?? 0),
  );
  if (at.line < lines || at.byte < bytes)
    throw damaged(
      dir,
      `it ends at line ${at.line} (byte ${at.byte}), and the session's turns were recorded up to line ${lines} (byte ${bytes}): a piece of conversation.d or the end of conversation.jsonl is missing`,
    );
}

export async function recordTurnZero(s: RecorderState): Promise<void> {
  const capture = await s.parts.index.capture();
  s.warnUnreadable(capture.unreadable);
  const turn = await saveTurnZero(s.saveContext(), capture.tree, s.parts.log.position);
  s.latestTree = Promise.resolve(capture.tree);
  await s.turnSaved(turn);
}

/**
 * nudge stopped (killed, the machine died) with turns begun but not saved. Each is saved now
 * from what the journal and the logs hold: a turn whose code was captured keeps that capture;
 * the turn that was in flight gets the code as it is found now. Lines claude wrote outside any
 * turn (after its last result) stay in conversation.jsonl and make no turn.
 */
export async function recoverUnsaved(s: RecorderState): Promise<void> {
  for (const pending of s.manifest.unsaved) {
    try {
      const turn = await recoverOne(s, pending);
      s.warn(`recovered turn ${turn.n} (${turn.status}), which nudge had not saved when it stopped`);
    } catch (error) {
      // Never let one unrecoverable turn lock the session for good: its lines stay in conversation.jsonl.
      s.warn(`could not recover turn ${pending.n} (${errorMessage(error)}); its lines stay in conversation.jsonl`);
    }
  }
  s.manifest = { ...s.manifest, unsaved: [] };
}

async function recoverOne(s: RecorderState, pending: PendingTurn): Promise<Turn> {
  const { files, log, input, index } = s.parts;
  // A turn whose capture never finished ends where the next one begun starts (a prompt that was
  // waiting went to claude at its result; that turn's tools were held, so it changed nothing).
  const next = s.manifest.unsaved.find((u) => u.n > pending.n);
  const toLine = pending.ended?.toLine ?? next?.fromLine ?? log.lineCount;
  const follower = new TurnFollower();
  // Read from the turn's first byte when the journal has it (an older journal: from the start).
  const skipped = pending.fromByte === undefined ? 0 : pending.fromLine;
  const lines = splitLines(await readStream(files.dir, pending.fromByte ?? 0)).slice(
    pending.fromLine - skipped,
    toLine - skipped,
  );
  for (const line of lines) follower.observe(toStreamEvent(parseLine(line), ""));
  // A capture of the user's edits that never finished: claude's tools were held waiting for it,
  // but when the user's edits ended and what changed after nudge stopped can no longer be told
  // apart, so they fold into the turn (its changes hold the user's edits too; README).
  if (pending.editsPending)
    s.warn(
      `turn ${pending.n}: nudge stopped before it had recorded your edits from before the prompt; they are recorded with the turn's changes`,
    );
  const baseTree = pending.editsTree ?? (await s.latestTree);
  const tree = (pending.ended && (pending.ended.tree ?? (await treeLeftInIndex(s)))) ?? (await index.capture()).tree;
  const turn = await saveTurn(s.saveContext(), {
    begin: pending,
    follower,
    baseTree,
    tree,
    head: await git.headCommit(s.manifest.repo.root),
    toLine,
    toByte: pending.ended?.toByte ?? next?.fromByte ?? log.position.byte,
    toInput: pending.ended?.toInput ?? next?.fromInput ?? input.lineCount,
    endedAt: pending.ended?.endedAt ?? now(),
  });
  s.latestTree = Promise.resolve(tree);
  await s.turnSaved(turn);
  return turn;
}

/**
 * A turn whose files were staged but whose tree was not yet written when nudge died: the private
 * index still holds exactly that state (nothing stages into it before the tree is written), so
 * its tree is that turn's. Read before this process's first scan seeds the index afresh.
 */
async function treeLeftInIndex(s: RecorderState): Promise<string | null> {
  const { index } = s.parts;
  if (index.used || !(await pathExists(index.indexFile))) return null;
  return git.writeTree(s.manifest.repo.root, index.indexFile, false).catch(() => null);
}
