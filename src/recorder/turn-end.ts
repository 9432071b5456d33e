/**
 * A turn's end, step 1: the code captured and the `ended` record made durable while a waiting
 * prompt already goes to claude; then step 2, its save, queued behind the earlier turns' saves.
 */
import { inContext } from "../base/errors.js";
import { faultPause, faultPoint } from "../base/fault-injection.js";
import * as git from "../snapshot/git.js";
import type { LogPosition } from "./conversation-log.js";
import { saveTurn } from "./turn-save.js";
import { now, type OpenTurn, type RecorderState } from "./recorder-state.js";

/** Step 1 of a turn's end: capture the code and make the turn durable; then queue its save. */
export function endTurn(
  s: RecorderState,
  open: OpenTurn,
  lines?: Promise<{ position: LogPosition; inputLine: number }>,
): void {
  if (s.open !== open) return;
  s.open = null;
  open.finished.resolve({
    n: open.begin.n,
    status: open.follower.status,
    result: open.result,
    startedAt: open.begin.startedAt,
    endedAt: now(),
  });
  // The turn's lines, when they come after its end (claude's own UI), are in before its end is durable.
  let position = s.parts.log.position;
  let inputLine = s.parts.input.lineCount;
  const previous = s.latestTree;
  // The critical moment is the stage: the turn's files fixed as blobs in the private index. It
  // runs while a prompt already waiting goes to claude (whose tools wait for it); the tree id is
  // written after it; the `ended` record says which state to write it from if nudge dies first
  // (the index file itself, see `recoverOne`).
  const capturing = (async () => {
    await previous.catch(() => undefined); // the last turn's tree is written before this index is touched again
    // A waiting prompt is written to claude first: starting git holds this thread a few ms.
    await new Promise((r) => setImmediate(r));
    await faultPause("turn-capture");
    const staged = await s.parts.index.stage();
    // HEAD comes with the scan; only the slow path (a fresh `add -A`) asks for it apart.
    const head = staged.head !== undefined ? staged.head : await git.headCommit(s.manifest.repo.root);
    faultPoint("after-capture");
    if (lines) ({ position, inputLine } = await lines);
    // Durable before claude's tools may run again: a crash after them must not take their changes for this turn's.
    s.parts.journal.append({
      type: "ended",
      n: open.begin.n,
      tree: staged.tree,
      toLine: position.line,
      toByte: position.byte,
      toInput: inputLine,
      endedAt: now(),
    });
    faultPoint("after-ended");
    s.warnUnreadable(staged.unreadable);
    return { staged, head };
  })();
  s.holdToolsUntil(capturing);
  const tree = capturing.then(async ({ staged }) => {
    if (staged.tree) return staged.tree;
    const written = await s.parts.index.writeTree();
    // Durable before the index is staged into again: from then on it no longer holds this turn's state.
    s.parts.journal.append({
      type: "ended",
      n: open.begin.n,
      tree: written,
      toLine: position.line,
      toByte: position.byte,
      toInput: inputLine,
      endedAt: now(),
    });
    return written;
  });
  tree.catch(() => undefined);
  s.latestTree = tree;
  s.saving = s.saving.then(async () => {
    try {
      // Turns are saved in order or not at all: after one that could not be, the later ones wait for the recovery.
      if (s.saveBlocked) throw s.saveBlocked;
      const { head } = await capturing;
      const turn = await saveTurn(s.saveContext(), {
        begin: { ...open.begin, editsTree: await open.edits },
        follower: open.follower,
        baseTree: await open.baseTree,
        tree: await tree,
        head,
        toLine: position.line,
        toByte: position.byte,
        toInput: inputLine,
        endedAt: now(),
        result: open.result,
        transcriptUpTo: open.transcriptUpTo,
      });
      await s.turnSaved(turn);
      open.saved.resolve(turn);
    } catch (error) {
      const failure = s.saveBlocked ?? inContext(error, `could not save turn ${open.begin.n}`);
      s.saveBlocked = failure;
      open.saved.reject(failure);
    }
  });
}
