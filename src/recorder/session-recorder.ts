/**
 * Records one nudge session: tees claude's stdout (and what nudge writes to claude) into the
 * bundle, follows turns through the stream, and at each turn's end captures the code.
 *
 * A turn ends in two steps, so the next prompt never waits for bookkeeping (and, before both,
 * `finished`: how it ended, its time and cost, known from claude's result line alone; a prompt
 * already waiting goes to claude then):
 * 1. `ended`: the work tree is captured as a tree id and an `ended` record is made durable in
 *    the journal. From here the turn survives any crash. Until then claude's tools that can
 *    change files are held (edits-gate.ts), so a next turn already under way changes nothing in it.
 * 2. `saved`: the snapshot commit, the session ref, the patch, claude's transcript and the turn
 *    record are written behind it, strictly in turn order. A crash before this is finished is
 *    completed by the next run from the `ended` record (see `recoverUnsaved`).
 * It knows nothing about terminals; listeners get the parsed events. Its parts: recorder-state.ts
 * (what they share), start-up.ts, open-turn.ts, line-intake.ts, turn-end.ts.
 */
import { ensureDir, sweepTempFiles } from "../store/atomic-write.js";
import type { Manifest, Turn } from "../store/manifest-schema.js";
import { isRunning, processStart, sessionLock, type HeldLock } from "../store/locks.js";
import { bundleFiles, writeBundle, type BundleFiles } from "../store/store.js";
import { TurnJournal } from "../store/turn-journal.js";
import { InternalError } from "../base/errors.js";
import { PrivateIndex } from "../snapshot/private-index.js";
import { ConversationLog, InputLog } from "./conversation-log.js";
import { TranscriptSync } from "./transcript-sync.js";
import { handleLine, takeLines } from "./line-intake.js";
import { beginTurn, reopenTurn, takeOpenTurn, type TurnHandle } from "./open-turn.js";
import { now, RecorderState, type RecorderContext, type RecorderListener } from "./recorder-state.js";
import { recordTurnZero, recoverUnsaved, refuseLostTurns, requireRecordedStream } from "./start-up.js";
import { endTurn } from "./turn-end.js";

export type { FinishedTurn, RecorderContext, RecorderListener } from "./recorder-state.js";
export type { TurnHandle } from "./open-turn.js";

/** Lines a start takes before it recovers unsaved turns (claude's own UI: its transcript's part nudge missed). */
export type CatchUp = (manifest: Manifest) => Promise<Buffer | null>;

/** How a recorder starts beyond its session: installed hooks run it for one hook at a time. */
export interface StartOptions {
  /** The session's lock, already held for this process (otherwise taken here). */
  lock?: HeldLock;
  /** A turn begun by an earlier process and not yet ended is open again here, to be ended by this one. */
  reopen?: boolean;
  /** The session goes on after this process (claude still runs it): closing leaves it "recording", its lock claude's. */
  goesOn?: boolean;
}

export class SessionRecorder {
  readonly files: BundleFiles;

  private constructor(private readonly s: RecorderState) {
    this.files = s.parts.files;
  }

  /**
   * Start recording into a bundle folder: lock it, open the logs, and for a new session snapshot
   * turn 0 (HEAD plus uncommitted work) before claude touches anything; for an existing one,
   * finish the turns a crash left unsaved.
   */
  static async start(
    dir: string,
    manifest: Manifest,
    context: RecorderContext,
    listener?: RecorderListener,
    catchUp?: CatchUp,
    o: StartOptions = {},
  ): Promise<SessionRecorder> {
    const files = bundleFiles(dir);
    await ensureDir(files.changes);
    await ensureDir(files.transcripts);
    const lock = o.lock ?? (await sessionLock(files.lock, manifest.id));
    try {
      await refuseLostTurns(manifest);
      await sweepTempFiles(dir, (pid) => isRunning({ pid, started: processStart(pid) }));
      // A bundle of the older format is rewritten in this one before anything is appended.
      if (manifest.format !== 2 || manifest.unsaved.length > 0) await writeBundle(dir, manifest);
      const log = ConversationLog.open(files);
      try {
        requireRecordedStream(dir, manifest, log.position);
      } catch (error) {
        log.close();
        throw error;
      }
      const index = new PrivateIndex({
        root: manifest.repo.root,
        indexFile: context.indexFile,
        exclude: context.exclude,
        untrackedCache: context.untrackedCache,
        stateFile: context.keptIndexState,
      });
      const s = new RecorderState(manifest, {
        files,
        log,
        input: InputLog.open(files),
        journal: TurnJournal.open(files.journal),
        index,
        transcripts: new TranscriptSync(dir, context.claudeConfigDir, context.cwd),
        lock,
        sharedWith: context.sharedWith,
        onSaved: context.turnSaved,
      });
      const recorder = new SessionRecorder(s);
      if (listener) recorder.listen(listener);
      // The header first: a session killed while its starting state is snapshotted still lists (as crashed).
      s.manifest = { ...s.manifest, state: "recording", updatedAt: now() };
      await s.writeHeader();
      if (s.manifest.turns.length === 0) await recordTurnZero(s);
      else {
        const reopened = o.reopen ? takeOpenTurn(s) : null;
        const missed = !reopened && catchUp ? await catchUp(s.manifest) : null;
        if (missed) takeLines(s, missed);
        await recoverUnsaved(s);
        if (reopened) reopenTurn(s, reopened);
      }
      s.keepIndex = context.keptIndexState !== undefined;
      s.goesOn = o.goesOn ?? false;
      return recorder;
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  get manifest(): Manifest {
    return this.s.manifest;
  }

  get turnInProgress(): boolean {
    return this.s.open !== null;
  }

  /** Resolves once no turn is open (one claude began by itself ends with its result, or with claude). */
  async turnEnded(): Promise<void> {
    while (this.s.open) await this.s.open.finished.promise.catch(() => undefined);
  }

  listen(listener: RecorderListener): void {
    this.s.listeners.push(listener);
  }

  /** The latest claude session id, which a new claude process resumes. */
  get claudeSessionId(): string | null {
    return this.s.manifest.turns.findLast((t) => t.claudeSessionId)?.claudeSessionId ?? null;
  }

  /** Has every turn begun been saved? */
  get allSaved(): boolean {
    return this.s.allSaved;
  }

  /** Was any prompt begun in this session (saved or not)? */
  get anyTurnBegun(): boolean {
    return this.s.nextN > 1;
  }

  /** The tree the next turn starts from, as last captured. */
  currentTree(): Promise<string> {
    return this.s.latestTree;
  }

  /**
   * Has the work tree changed since the last capture (edits between runs, a rewind, an undo)?
   * Returns the new tree, or null. A turn captures the user's edits itself, beside its prompt
   * (`beginTurn`).
   */
  async captureEdits(): Promise<string | null> {
    const previous = await this.s.latestTree;
    const capture = await this.s.parts.index.capture();
    this.s.warnUnreadable(capture.unreadable);
    if (capture.tree === previous) return null;
    return capture.tree;
  }

  /**
   * Open a turn. Its prompt is made durable before claude sees it, so no crash can lose it.
   * `captureEdits`: what the user changed since the last capture is captured now, while the prompt
   * goes to claude (the handle's `edits`); claude's tools are held until it is durable (`capturesSettled`).
   */
  beginTurn(prompt: string, o: { captureEdits?: boolean } = {}): TurnHandle {
    return beginTurn(this.s, prompt, o);
  }

  /**
   * Resolves once no capture of the work tree is running (a turn's end, the user's edits): true
   * when the last one was recorded, false when it failed (then nothing of claude's should run).
   */
  capturesSettled(): Promise<boolean> {
    return this.s.capture;
  }

  markInterruptRequested(): void {
    this.s.open?.follower.interruptRequested();
  }

  /** A new claude process: its cost counter starts from zero again, and the lock names it. */
  async processStarted(pid: number | undefined): Promise<void> {
    this.s.processCost = 0;
    await this.s.parts.lock.setClaude(pid);
  }

  /** Has claude ever written anything to this session (a claude that rejects its arguments never does)? */
  get claudeEverSpoke(): boolean {
    return this.s.heardFromClaude || this.s.manifest.turns.some((t) => t.lines.to > t.lines.from);
  }

  handleStdout(chunk: Buffer): void {
    if (chunk.length > 0) this.s.heardFromClaude = true;
    this.s.parts.log.appendStdout(chunk, (line, n) => handleLine(this.s, line, n));
  }

  handleStderr(chunk: Buffer): void {
    this.s.parts.log.appendStderr(chunk);
  }

  /**
   * Claude's own UI writes no stream: a turn's lines are its part of claude's transcript (whole
   * lines, kept as bytes), and its Stop hook ends the turn (`complete` false: claude exited with
   * the turn open). The code is captured at once; the lines, which claude writes a moment after
   * the hook, are taken when `part` gives them, and the turn's end is made durable after both.
   */
  endTurnByHook(part: Promise<{ lines: Buffer; upTo: number }>, complete: boolean): TurnHandle | null {
    const s = this.s;
    const open = s.open;
    if (!open) return null;
    if (complete) open.follower.hookEnded();
    const taken = part.then(({ lines, upTo }) => {
      takeLines(s, lines, open.follower);
      open.transcriptUpTo = upTo;
      // Where the turn ends is read now: once `part` is in, the next turn's lines may follow before this end's capture is done.
      return { position: s.parts.log.position, inputLine: s.parts.input.lineCount };
    });
    endTurn(s, open, taken);
    return { n: open.begin.n, finished: open.finished.promise, saved: open.saved.promise, edits: open.edits };
  }

  /** Every line nudge writes to claude goes through here first (input.jsonl). */
  recordInput(line: string): void {
    this.s.parts.input.append(line);
  }

  /** claude is gone: a turn still open is recorded as incomplete, with the code as claude left it. */
  async processExited(): Promise<Turn | null> {
    this.s.parts.log.endOfStream((line, n) => handleLine(this.s, line, n));
    const open = this.s.open;
    if (!open) return null;
    endTurn(this.s, open);
    return open.saved.promise;
  }

  /**
   * Add to a saved turn's record (an agentic loop's check result): a new record of the same turn
   * is appended, and the last one wins.
   */
  async annotateTurn(n: number, fields: Pick<Partial<Turn>, "check" | "loop">): Promise<Turn> {
    const s = this.s;
    await s.saving;
    const turn = s.manifest.turns.find((t) => t.n === n);
    if (!turn) throw new InternalError(`turn ${n} is not saved`);
    const updated = { ...turn, ...fields };
    s.parts.journal.append({ type: "turn", ...updated });
    s.manifest = {
      ...s.manifest,
      turns: s.manifest.turns.map((t) => (t.n === n ? updated : t)),
      updatedAt: now(),
    };
    await s.writeHeader();
    return updated;
  }

  /** Wait for every turn begun so far to be saved (or to have failed). */
  async settled(): Promise<void> {
    await this.s.saving;
  }

  /** End the session: the header says complete, the private index goes, the lock is released. */
  async close(): Promise<void> {
    const s = this.s;
    const { log, input, journal, index, lock } = s.parts;
    try {
      await s.saving;
      // A finished session's stream is all in compressed pieces.
      log.finishPiece({ always: true });
      await log.piecesSettled();
      log.sync();
      input.sync();
      // A turn begun but not saved (its save failed: a full disk) leaves the session "recording",
      // which with no lock held lists as crashed: the next run recovers that turn.
      s.manifest = {
        ...s.manifest,
        state: s.allSaved && !s.goesOn ? "complete" : "recording",
        updatedAt: now(),
      };
      await s.writeHeader();
      // A turn not saved may need the index as it is (its tree not yet written): it stays for the recovery.
      if (s.allSaved && !s.keepIndex) await index.dispose().catch(() => undefined);
    } finally {
      // Whatever failed, the session must not stay locked.
      for (const close of [() => log.close(), () => input.close(), () => journal.close(), () => s.git.close()]) {
        try {
          close();
        } catch {
          // already closed, or the disk is gone: nothing more to save
        }
      }
      await lock.release();
    }
  }
}
