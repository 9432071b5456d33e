/**
 * Opening a turn: its prompt made durable before claude sees it, the user's edits captured beside
 * it, or a turn an earlier process began opened again in this one.
 */
import type { PendingTurn, Turn } from "../store/manifest-schema.js";
import { InternalError } from "../base/errors.js";
import { faultPause } from "../base/fault-injection.js";
import { TurnFollower } from "./turn-follower.js";
import { deferred, now, type FinishedTurn, type OpenTurn, type RecorderState } from "./recorder-state.js";

export interface TurnHandle {
  n: number;
  /** claude's result is in (or claude is gone): the turn's outcome, time and cost. */
  finished: Promise<FinishedTurn>;
  /** The turn's whole record is written (its snapshot, patch, transcript copy). */
  saved: Promise<Turn>;
  /** The user's edits before the prompt are captured and durable: their tree, or null when there were none. */
  edits: Promise<string | null>;
}

/** See `SessionRecorder.beginTurn`. */
export function beginTurn(s: RecorderState, prompt: string, o: { captureEdits?: boolean }): TurnHandle {
  if (s.open) throw new InternalError("a turn is already in progress");
  const position = s.parts.log.position;
  const begin: PendingTurn = {
    n: s.nextN,
    prompt,
    startedAt: now(),
    fromLine: position.line,
    fromByte: position.byte,
    fromInput: s.parts.input.lineCount,
    editsTree: null,
    ...(o.captureEdits ? { editsPending: true as const } : {}),
    ended: null,
  };
  const { ended: _, ...record } = begin;
  s.parts.journal.append({ type: "begin", ...record });
  s.nextN++;
  s.taskNotified = false; // whatever claude was told of before this turn, it answers in it
  const edits = o.captureEdits ? captureEditsBeside(s, begin.n) : Promise.resolve(null);
  const open: OpenTurn = {
    begin,
    follower: new TurnFollower(),
    baseTree: s.latestTree,
    edits,
    finished: deferred(),
    saved: deferred(),
    result: null,
  };
  s.open = open;
  // A caller may await only one of these; a failure must still never go unhandled. (A capture of
  // the edits that failed fails the turn: its save awaits them.)
  edits.catch(() => undefined);
  open.saved.promise.catch(() => undefined);
  return { n: begin.n, finished: open.finished.promise, saved: open.saved.promise, edits };
}

/**
 * The user's edits before turn `n`, captured beside its prompt. Its place in the chain of
 * captures is taken now: it stages after the previous turn's tree is written, and the turn's own
 * end capture (and the next turn's base) waits for it. Its `edits` record is durable before it
 * settles, which is what lets claude's first tool run.
 */
function captureEditsBeside(s: RecorderState, n: number): Promise<string | null> {
  const previous = s.latestTree;
  const edits = (async () => {
    const before = await previous;
    await faultPause("edits-capture");
    const capture = await s.parts.index.capture();
    s.warnUnreadable(capture.unreadable);
    const tree = capture.tree === before ? null : capture.tree;
    s.parts.journal.append({ type: "edits", n, tree });
    return tree;
  })();
  s.holdToolsUntil(edits);
  s.latestTree = edits.then(async (tree) => tree ?? (await previous));
  s.latestTree.catch(() => undefined);
  return edits;
}

/** The turn an earlier process began and none ended (its user's edits recorded), out of the turns to recover. */
export function takeOpenTurn(s: RecorderState): PendingTurn | null {
  const last = s.manifest.unsaved.at(-1);
  if (!last || last.ended !== null || last.editsPending) return null;
  s.manifest = { ...s.manifest, unsaved: s.manifest.unsaved.slice(0, -1) };
  return last;
}

/** That turn open in this process, as `beginTurn` left it in the earlier one. */
export function reopenTurn(s: RecorderState, begin: PendingTurn): void {
  // The turn's changes are counted from after the user's edits, as `beginTurn` counts them.
  const baseTree = s.latestTree.then((tree) => begin.editsTree ?? tree);
  const edits = Promise.resolve(begin.editsTree ?? null);
  s.latestTree = baseTree;
  const open: OpenTurn = {
    begin,
    follower: new TurnFollower(),
    baseTree,
    edits,
    finished: deferred(),
    saved: deferred(),
    result: null,
  };
  open.saved.promise.catch(() => undefined);
  s.open = open;
}
