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
 * It knows nothing about terminals; listeners get the parsed events.
 */
import { ensureDir, sweepTempFiles } from "../store/atomic-write.js";
import type { Manifest, ManifestHeader, PendingTurn, Turn, TurnResult } from "../store/manifest-schema.js";
import { isRunning, processStart, sessionLock, type HeldLock } from "../store/locks.js";
import { bundleFiles, headerOf, writeBundle, writeHeader, type BundleFiles } from "../store/store.js";
import { summaryOf } from "../store/summary.js";
import { TurnJournal } from "../store/turn-journal.js";
import { lineText, parseEventLine, parseLine, splitLines } from "../claude/ndjson.js";
import { toStreamEvent, type StreamEvent } from "../claude/stream-events.js";
import { InternalError, UserError, errorMessage, inContext } from "../base/errors.js";
import { faultPause, faultPoint } from "../base/fault-injection.js";
import { pathExists } from "../base/file-exists.js";
import { RecordingGit } from "../snapshot/git-channels.js";
import * as git from "../snapshot/git.js";
import { PrivateIndex } from "../snapshot/private-index.js";
import { turnsPast } from "../snapshot/snapshotter.js";
import { ConversationLog, InputLog, type LogPosition } from "./conversation-log.js";
import { damaged, readStream } from "../store/conversation-pieces.js";
import { recordedLineCount } from "../store/conversation-reader.js";
import { TranscriptSync } from "./transcript-sync.js";
import { TurnFollower, resultSummary } from "./turn-follower.js";
import { saveTurn, saveTurnZero, type SaveContext } from "./turn-save.js";

/** Lines a start takes before it recovers unsaved turns (claude's own UI: its transcript's part nudge missed). */
export type CatchUp = (manifest: Manifest) => Promise<Buffer | null>;

export interface RecorderListener {
  event?(event: StreamEvent, line: number): void;
  warning?(message: string): void;
}

export interface RecorderContext {
  claudeConfigDir: string;
  /** Where claude runs; its transcripts are filed under this path. */
  cwd: string;
  /** Folders inside the work tree that snapshots leave out (nudge's store, claude's config). */
  exclude: string[];
  /** The session's private index (kept for the whole recording). */
  indexFile: string;
  untrackedCache: boolean;
  /** The other recordings live in this work tree between two times (`claude run --force`): a turn that overlapped one is marked. */
  sharedWith?: (from: string, to: string) => Promise<string[]>;
  /** A turn's record and the header after it are written (the search index follows it, off this path). */
  turnSaved?: (sessionId: string) => void;
  /** The private index outlives this process (installed hooks: one short process per hook); what it holds is noted here. */
  keptIndexState?: string;
}

/** How a recorder starts beyond its session: installed hooks run it for one hook at a time. */
export interface StartOptions {
  /** The session's lock, already held for this process (otherwise taken here). */
  lock?: HeldLock;
  /** A turn begun by an earlier process and not yet ended is open again here, to be ended by this one. */
  reopen?: boolean;
  /** The session goes on after this process (claude still runs it): closing leaves it "recording", its lock claude's. */
  goesOn?: boolean;
}

/** A turn in flight: what the stream has told about it so far. */
interface OpenTurn {
  begin: PendingTurn;
  follower: TurnFollower;
  /** The tree the turn started from: the previous turn's (perhaps still being written), or the user's edits before it. */
  baseTree: Promise<string>;
  /** The user's edits before it, captured while its prompt went (null: none, or not captured). */
  edits: Promise<string | null>;
  finished: Deferred<FinishedTurn>;
  saved: Deferred<Turn>;
  result: TurnResult | null;
  /** Claude's own UI: where the turn's part of claude's transcript ends. */
  transcriptUpTo?: number;
}

/**
 * What is known the moment claude's result arrives (or claude is gone): enough for the end-of-turn
 * line's outcome, time and cost, before any of the turn's code is captured.
 */
export type FinishedTurn = Pick<Turn, "n" | "status" | "result" | "startedAt" | "endedAt">;

export interface TurnHandle {
  n: number;
  /** claude's result is in (or claude is gone): the turn's outcome, time and cost. */
  finished: Promise<FinishedTurn>;
  /** The turn's whole record is written (its snapshot, patch, transcript copy). */
  saved: Promise<Turn>;
  /** The user's edits before the prompt are captured and durable: their tree, or null when there were none. */
  edits: Promise<string | null>;
}

export class SessionRecorder {
  private open: OpenTurn | null = null;
  /** Saves run one after another, in turn order; this never rejects (each turn's own promise does). */
  private saving: Promise<void> = Promise.resolve();
  private headerWrite: Promise<void> = Promise.resolve();
  private readonly listeners: RecorderListener[] = [];
  /**
   * The newest captured tree: what the next turn starts from unless the user changed something.
   * A promise: a turn's tree is written behind the next prompt, and every later scan of the index waits for it.
   */
  private latestTree: Promise<string>;
  /** The head of the session's snapshot chain once every save so far is done. */
  private lastCommit: string | null;
  /** Turns begun in this process or recovered: the next turn's number. */
  private nextN: number;
  /**
   * The newest capture of the work tree (a turn's end, or the user's edits beside a prompt), still
   * running while claude may already work on the next prompt: claude's tools wait for it (see
   * edits-gate.ts), so nothing of claude's next turn can be in it. Settled: nothing to wait for.
   */
  private capture: Promise<boolean> = Promise.resolve(true);
  /** The first save that failed: no later turn is saved out of order after it. */
  private saveBlocked: Error | null = null;
  /** claude's total_cost_usd so far in the current process (it is cumulative per process). */
  private processCost = 0;
  /** git processes kept for the recording: each turn's patch and ref without starting two more. */
  private readonly git: RecordingGit;

  private constructor(
    private manifest_: Manifest,
    readonly files: BundleFiles,
    private readonly log: ConversationLog,
    private readonly input: InputLog,
    private readonly journal: TurnJournal,
    private readonly index: PrivateIndex,
    private readonly transcripts: TranscriptSync,
    private readonly lock: HeldLock,
    private readonly sharedWith?: RecorderContext["sharedWith"],
    private readonly onSaved?: RecorderContext["turnSaved"],
  ) {
    this.git = new RecordingGit(manifest_.repo.root);
    const last = manifest_.turns.at(-1);
    this.latestTree = Promise.resolve(last?.snapshot.tree ?? "");
    this.lastCommit = last?.snapshot.commit ?? null;
    this.nextN = Math.max(manifest_.turns.length, ...manifest_.unsaved.map((u) => u.n + 1));
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
      const recorder = new SessionRecorder(
        manifest,
        files,
        log,
        InputLog.open(files),
        TurnJournal.open(files.journal),
        index,
        new TranscriptSync(dir, context.claudeConfigDir, context.cwd),
        lock,
        context.sharedWith,
        context.turnSaved,
      );
      if (listener) recorder.listen(listener);
      // The header first: a session killed while its starting state is snapshotted still lists (as crashed).
      recorder.manifest_ = { ...recorder.manifest_, state: "recording", updatedAt: now() };
      await recorder.writeHeader();
      if (recorder.manifest_.turns.length === 0) await recorder.recordTurnZero();
      else {
        const reopened = o.reopen ? recorder.takeOpenTurn() : null;
        const missed = !reopened && catchUp ? await catchUp(recorder.manifest_) : null;
        if (missed) recorder.takeLines(missed);
        await recorder.recoverUnsaved();
        if (reopened) recorder.reopen(reopened);
      }
      recorder.keepIndex = context.keptIndexState !== undefined;
      recorder.goesOn = o.goesOn ?? false;
      return recorder;
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  get manifest(): Manifest {
    return this.manifest_;
  }

  get turnInProgress(): boolean {
    return this.open !== null;
  }

  listen(listener: RecorderListener): void {
    this.listeners.push(listener);
  }

  /** The latest claude session id, which a new claude process resumes. */
  get claudeSessionId(): string | null {
    return this.manifest_.turns.findLast((t) => t.claudeSessionId)?.claudeSessionId ?? null;
  }

  /** In this process: a turn still open is not in the manifest yet. */
  private heardFromClaude = false;
  /** The private index is kept for the next process (see `RecorderContext.keptIndexState`). */
  private keepIndex = false;
  private goesOn = false;

  /** The turn an earlier process began and none ended (its user's edits recorded), out of the turns to recover. */
  private takeOpenTurn(): PendingTurn | null {
    const last = this.manifest_.unsaved.at(-1);
    if (!last || last.ended !== null || last.editsPending) return null;
    this.manifest_ = { ...this.manifest_, unsaved: this.manifest_.unsaved.slice(0, -1) };
    return last;
  }

  /** That turn open in this process, as `beginTurn` left it in the earlier one. */
  private reopen(begin: PendingTurn): void {
    // The turn's changes are counted from after the user's edits, as `beginTurn` counts them.
    const baseTree = this.latestTree.then((tree) => begin.editsTree ?? tree);
    const edits = Promise.resolve(begin.editsTree ?? null);
    this.latestTree = baseTree;
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
    this.open = open;
  }

  /** Has every turn begun been saved? */
  get allSaved(): boolean {
    return this.open === null && this.nextN <= (this.manifest_.turns.at(-1)?.n ?? -1) + 1;
  }

  /** Was any prompt begun in this session (saved or not)? */
  get anyTurnBegun(): boolean {
    return this.nextN > 1;
  }

  /** The tree the next turn starts from, as last captured. */
  currentTree(): Promise<string> {
    return this.latestTree;
  }

  /**
   * Has the work tree changed since the last capture (edits between runs, a rewind, an undo)?
   * Returns the new tree, or null. A turn captures the user's edits itself, beside its prompt
   * (`beginTurn`).
   */
  async captureEdits(): Promise<string | null> {
    const previous = await this.latestTree;
    const capture = await this.index.capture();
    this.warnUnreadable(capture.unreadable);
    if (capture.tree === previous) return null;
    return capture.tree;
  }

  /**
   * Open a turn. Its prompt is made durable before claude sees it, so no crash can lose it.
   * `captureEdits`: what the user changed since the last capture is captured now, while the prompt
   * goes to claude (the handle's `edits`); claude's tools are held until it is durable (`capturesSettled`).
   */
  beginTurn(prompt: string, o: { captureEdits?: boolean } = {}): TurnHandle {
    if (this.open) throw new InternalError("a turn is already in progress");
    const position = this.log.position;
    const begin: PendingTurn = {
      n: this.nextN,
      prompt,
      startedAt: now(),
      fromLine: position.line,
      fromByte: position.byte,
      fromInput: this.input.lineCount,
      editsTree: null,
      ...(o.captureEdits ? { editsPending: true as const } : {}),
      ended: null,
    };
    const { ended: _, ...record } = begin;
    this.journal.append({ type: "begin", ...record });
    this.nextN++;
    const edits = o.captureEdits ? this.captureEditsBeside(begin.n) : Promise.resolve(null);
    const open: OpenTurn = {
      begin,
      follower: new TurnFollower(),
      baseTree: this.latestTree,
      edits,
      finished: deferred(),
      saved: deferred(),
      result: null,
    };
    this.open = open;
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
  private captureEditsBeside(n: number): Promise<string | null> {
    const previous = this.latestTree;
    const edits = (async () => {
      const before = await previous;
      await faultPause("edits-capture");
      const capture = await this.index.capture();
      this.warnUnreadable(capture.unreadable);
      const tree = capture.tree === before ? null : capture.tree;
      this.journal.append({ type: "edits", n, tree });
      return tree;
    })();
    this.holdToolsUntil(edits);
    this.latestTree = edits.then(async (tree) => tree ?? (await previous));
    this.latestTree.catch(() => undefined);
    return edits;
  }

  /**
   * Resolves once no capture of the work tree is running (a turn's end, the user's edits): true
   * when the last one was recorded, false when it failed (then nothing of claude's should run).
   */
  capturesSettled(): Promise<boolean> {
    return this.capture;
  }

  /** `capture` is now the newest one: claude's tools wait until it is recorded (or has failed). */
  private holdToolsUntil(capture: Promise<unknown>): void {
    this.capture = capture.then(
      () => true,
      () => false,
    );
  }

  markInterruptRequested(): void {
    this.open?.follower.interruptRequested();
  }

  /** A new claude process: its cost counter starts from zero again, and the lock names it. */
  async processStarted(pid: number | undefined): Promise<void> {
    this.processCost = 0;
    await this.lock.setClaude(pid);
  }

  /** Has claude ever written anything to this session (a claude that rejects its arguments never does)? */
  get claudeEverSpoke(): boolean {
    return this.heardFromClaude || this.manifest_.turns.some((t) => t.lines.to > t.lines.from);
  }

  handleStdout(chunk: Buffer): void {
    if (chunk.length > 0) this.heardFromClaude = true;
    this.log.appendStdout(chunk, (line, n) => this.handleLine(line, n));
  }

  handleStderr(chunk: Buffer): void {
    this.log.appendStderr(chunk);
  }

  /**
   * Claude's own UI writes no stream: a turn's lines are its part of claude's transcript (whole
   * lines, kept as bytes), and its Stop hook ends the turn (`complete` false: claude exited with
   * the turn open). The code is captured at once; the lines, which claude writes a moment after
   * the hook, are taken when `part` gives them, and the turn's end is made durable after both.
   */
  endTurnByHook(part: Promise<{ lines: Buffer; upTo: number }>, complete: boolean): TurnHandle | null {
    const open = this.open;
    if (!open) return null;
    if (complete) open.follower.hookEnded();
    const taken = part.then(({ lines, upTo }) => {
      this.takeLines(lines, open.follower);
      open.transcriptUpTo = upTo;
      // Where the turn ends is read now: once `part` is in, the next turn's lines may follow before this end's capture is done.
      return { position: this.log.position, inputLine: this.input.lineCount };
    });
    this.endTurn(open, taken);
    return { n: open.begin.n, finished: open.finished.promise, saved: open.saved.promise, edits: open.edits };
  }

  /** Lines of claude's transcript, observed by the turn they belong to (none: the recovery's catch-up, before any turn). */
  private takeLines(lines: Buffer, follower?: TurnFollower): void {
    if (lines.length === 0) return;
    this.heardFromClaude = true;
    this.log.appendStdout(lines, (line, n) => {
      const event = lineEvent(line);
      follower?.observe(event);
      for (const l of this.listeners) l.event?.(event, n);
    });
  }

  /** Every line nudge writes to claude goes through here first (input.jsonl). */
  recordInput(line: string): void {
    this.input.append(line);
  }

  /** claude is gone: a turn still open is recorded as incomplete, with the code as claude left it. */
  async processExited(): Promise<Turn | null> {
    this.log.endOfStream((line, n) => this.handleLine(line, n));
    const open = this.open;
    if (!open) return null;
    this.endTurn(open);
    return open.saved.promise;
  }

  /**
   * Add to a saved turn's record (an agentic loop's check result): a new record of the same turn
   * is appended, and the last one wins.
   */
  async annotateTurn(n: number, fields: Pick<Partial<Turn>, "check" | "loop">): Promise<Turn> {
    await this.saving;
    const turn = this.manifest_.turns.find((t) => t.n === n);
    if (!turn) throw new InternalError(`turn ${n} is not saved`);
    const updated = { ...turn, ...fields };
    this.journal.append({ type: "turn", ...updated });
    this.manifest_ = {
      ...this.manifest_,
      turns: this.manifest_.turns.map((t) => (t.n === n ? updated : t)),
      updatedAt: now(),
    };
    await this.writeHeader();
    return updated;
  }

  /** Wait for every turn begun so far to be saved (or to have failed). */
  async settled(): Promise<void> {
    await this.saving;
  }

  /** End the session: the header says complete, the private index goes, the lock is released. */
  async close(): Promise<void> {
    try {
      await this.saving;
      // A finished session's stream is all in compressed pieces.
      this.log.finishPiece({ always: true });
      await this.log.piecesSettled();
      this.log.sync();
      this.input.sync();
      // A turn begun but not saved (its save failed: a full disk) leaves the session "recording",
      // which with no lock held lists as crashed: the next run recovers that turn.
      this.manifest_ = {
        ...this.manifest_,
        state: this.allSaved && !this.goesOn ? "complete" : "recording",
        updatedAt: now(),
      };
      await this.writeHeader();
      // A turn not saved may need the index as it is (its tree not yet written): it stays for the recovery.
      if (this.allSaved && !this.keepIndex) await this.index.dispose().catch(() => undefined);
    } finally {
      // Whatever failed, the session must not stay locked.
      for (const close of [
        () => this.log.close(),
        () => this.input.close(),
        () => this.journal.close(),
        () => this.git.close(),
      ]) {
        try {
          close();
        } catch {
          // already closed, or the disk is gone: nothing more to save
        }
      }
      await this.lock.release();
    }
  }

  private handleLine(line: Buffer, n: number): void {
    const event = lineEvent(line);
    if (event.type === "invalid" && event.text.trim() !== "") {
      this.warn(`claude wrote a line that is not JSON (line ${n + 1}); kept as is`);
    }
    this.observeSession(event);
    const open = this.open;
    if (open && open.follower.observe(event) && event.type === "result") {
      open.result = resultSummary(event, this.processCost);
      if (event.total_cost_usd !== undefined) this.processCost = event.total_cost_usd;
      this.endTurn(open);
    }
    for (const l of this.listeners) l.event?.(event, n);
  }

  /** What the session as a whole learns from a line (claude's version and model). */
  private observeSession(event: StreamEvent): void {
    if (event.type === "system" && event.subtype === "init") {
      const claude = {
        version: event.claude_code_version ?? this.manifest_.claude.version,
        model: event.model ?? this.manifest_.claude.model,
      };
      this.manifest_ = { ...this.manifest_, claude };
    }
  }

  /** Step 1 of a turn's end: capture the code and make the turn durable; then queue its save. */
  private endTurn(open: OpenTurn, lines?: Promise<{ position: LogPosition; inputLine: number }>): void {
    if (this.open !== open) return;
    this.open = null;
    open.finished.resolve({
      n: open.begin.n,
      status: open.follower.status,
      result: open.result,
      startedAt: open.begin.startedAt,
      endedAt: now(),
    });
    // The turn's lines, when they come after its end (claude's own UI), are in before its end is durable.
    let position = this.log.position;
    let inputLine = this.input.lineCount;
    const previous = this.latestTree;
    // The critical moment is the stage: the turn's files fixed as blobs in the private index. It
    // runs while a prompt already waiting goes to claude (whose tools wait for it); the tree id is
    // written after it; the `ended` record says which state to write it from if nudge dies first
    // (the index file itself, see `recoverOne`).
    const capturing = (async () => {
      await previous.catch(() => undefined); // the last turn's tree is written before this index is touched again
      // A waiting prompt is written to claude first: starting git holds this thread a few ms.
      await new Promise((r) => setImmediate(r));
      await faultPause("turn-capture");
      const staged = await this.index.stage();
      // HEAD comes with the scan; only the slow path (a fresh `add -A`) asks for it apart.
      const head = staged.head !== undefined ? staged.head : await git.headCommit(this.manifest_.repo.root);
      faultPoint("after-capture");
      if (lines) ({ position, inputLine } = await lines);
      // Durable before claude's tools may run again: a crash after them must not take their changes for this turn's.
      this.journal.append({
        type: "ended",
        n: open.begin.n,
        tree: staged.tree,
        toLine: position.line,
        toByte: position.byte,
        toInput: inputLine,
        endedAt: now(),
      });
      faultPoint("after-ended");
      this.warnUnreadable(staged.unreadable);
      return { staged, head };
    })();
    this.holdToolsUntil(capturing);
    const tree = capturing.then(async ({ staged }) => {
      if (staged.tree) return staged.tree;
      const written = await this.index.writeTree();
      // Durable before the index is staged into again: from then on it no longer holds this turn's state.
      this.journal.append({
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
    this.latestTree = tree;
    this.saving = this.saving.then(async () => {
      try {
        // Turns are saved in order or not at all: after one that could not be, the later ones wait for the recovery.
        if (this.saveBlocked) throw this.saveBlocked;
        const { head } = await capturing;
        const turn = await saveTurn(this.saveContext(), {
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
        await this.turnSaved(turn);
        open.saved.resolve(turn);
      } catch (error) {
        const failure = this.saveBlocked ?? inContext(error, `could not save turn ${open.begin.n}`);
        this.saveBlocked = failure;
        open.saved.reject(failure);
      }
    });
  }

  private saveContext(): SaveContext {
    return {
      manifest: this.manifest_,
      dir: this.files.dir,
      parentCommit: this.lastCommit,
      transcripts: this.transcripts,
      git: this.git,
      sharedWith: this.sharedWith,
      warn: (message) => this.warn(message),
    };
  }

  /** Step 2 done: the turn record is durable; the header's summary follows it. */
  private async turnSaved(turn: Turn): Promise<void> {
    this.journal.append({ type: "turn", ...turn });
    faultPoint("after-turn-record");
    this.lastCommit = turn.snapshot.commit;
    this.nextN = Math.max(this.nextN, turn.n + 1);
    const turns = [...this.manifest_.turns, turn];
    // A turn that reached claude consumes a pending fork point: later runs resume this turn's session.
    const resume = turn.claudeSessionId ? null : this.manifest_.resume;
    this.manifest_ = {
      ...this.manifest_,
      resume,
      turns,
      unsaved: this.manifest_.unsaved.filter((u) => u.n !== turn.n),
      summary: summaryOf(turns),
      updatedAt: now(),
    };
    await this.writeHeader();
    this.onSaved?.(this.manifest_.id);
    this.log.finishPiece({ always: false });
  }

  /** Header writes are serialized, so an older header can never land after a newer one. */
  private writeHeader(): Promise<void> {
    const header: ManifestHeader = headerOf(this.manifest_);
    const write = this.headerWrite.then(() => writeHeader(this.files.dir, header));
    this.headerWrite = write.catch(() => undefined);
    return write;
  }

  /**
   * nudge stopped (killed, the machine died) with turns begun but not saved. Each is saved now
   * from what the journal and the logs hold: a turn whose code was captured keeps that capture;
   * the turn that was in flight gets the code as it is found now. Lines claude wrote outside any
   * turn (after its last result) stay in conversation.jsonl and make no turn.
   */
  private async recoverUnsaved(): Promise<void> {
    for (const pending of this.manifest_.unsaved) {
      try {
        const turn = await this.recoverOne(pending);
        this.warn(`recovered turn ${turn.n} (${turn.status}), which nudge had not saved when it stopped`);
      } catch (error) {
        // Never let one unrecoverable turn lock the session for good: its lines stay in conversation.jsonl.
        this.warn(`could not recover turn ${pending.n} (${errorMessage(error)}); its lines stay in conversation.jsonl`);
      }
    }
    this.manifest_ = { ...this.manifest_, unsaved: [] };
  }

  private async recoverOne(pending: PendingTurn): Promise<Turn> {
    // A turn whose capture never finished ends where the next one begun starts (a prompt that was
    // waiting went to claude at its result; that turn's tools were held, so it changed nothing).
    const next = this.manifest_.unsaved.find((u) => u.n > pending.n);
    const toLine = pending.ended?.toLine ?? next?.fromLine ?? this.log.lineCount;
    const follower = new TurnFollower();
    // Read from the turn's first byte when the journal has it (an older journal: from the start).
    const skipped = pending.fromByte === undefined ? 0 : pending.fromLine;
    const lines = splitLines(await readStream(this.files.dir, pending.fromByte ?? 0)).slice(
      pending.fromLine - skipped,
      toLine - skipped,
    );
    for (const line of lines) follower.observe(toStreamEvent(parseLine(line), ""));
    // A capture of the user's edits that never finished: claude's tools were held waiting for it,
    // but when the user's edits ended and what changed after nudge stopped can no longer be told
    // apart, so they fold into the turn (its changes hold the user's edits too; README).
    if (pending.editsPending)
      this.warn(
        `turn ${pending.n}: nudge stopped before it had recorded your edits from before the prompt; they are recorded with the turn's changes`,
      );
    const baseTree = pending.editsTree ?? (await this.latestTree);
    const tree =
      (pending.ended && (pending.ended.tree ?? (await this.treeLeftInIndex()))) ?? (await this.index.capture()).tree;
    const turn = await saveTurn(this.saveContext(), {
      begin: pending,
      follower,
      baseTree,
      tree,
      head: await git.headCommit(this.manifest_.repo.root),
      toLine,
      toByte: pending.ended?.toByte ?? next?.fromByte ?? this.log.position.byte,
      toInput: pending.ended?.toInput ?? next?.fromInput ?? this.input.lineCount,
      endedAt: pending.ended?.endedAt ?? now(),
    });
    this.latestTree = Promise.resolve(tree);
    await this.turnSaved(turn);
    return turn;
  }

  /**
   * A turn whose files were staged but whose tree was not yet written when nudge died: the private
   * index still holds exactly that state (nothing stages into it before the tree is written), so
   * its tree is that turn's. Read before this process's first scan seeds the index afresh.
   */
  private async treeLeftInIndex(): Promise<string | null> {
    if (this.index.used || !(await pathExists(this.index.indexFile))) return null;
    return git.writeTree(this.manifest_.repo.root, this.index.indexFile, false).catch(() => null);
  }

  private async recordTurnZero(): Promise<void> {
    const capture = await this.index.capture();
    this.warnUnreadable(capture.unreadable);
    const turn = await saveTurnZero(this.saveContext(), capture.tree, this.log.position);
    this.latestTree = Promise.resolve(capture.tree);
    await this.turnSaved(turn);
  }

  private warnUnreadable(files: string[]): void {
    if (files.length === 0) return;
    this.warn(
      `git could not read ${files.slice(0, 5).join(", ")}${files.length > 5 ? ` and ${files.length - 5} more` : ""}; the snapshot keeps their last readable version`,
    );
  }

  private warn(message: string): void {
    for (const l of this.listeners) l.warning?.(message);
  }
}

/**
 * A journal and header both behind the session's ref (restored from an old copy, say): the ref
 * holds turns nothing else names, and recording on would repoint it back over them. A turn whose
 * snapshot was made just before nudge stopped is still in the journal as unsaved: it is recovered.
 */
async function refuseLostTurns(manifest: Manifest): Promise<void> {
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

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** A line of claude's as the event it is (one that is not JSON: its text, kept for the warning and the view). */
function lineEvent(line: Buffer): StreamEvent {
  const json = parseEventLine(line);
  return toStreamEvent(json, json === null ? lineText(line) : "");
}

function now(): string {
  return new Date().toISOString();
}

/**
 * The stream holds every line and byte the session's turns were recorded at. Shorter (a piece of
 * conversation.d gone, conversation.jsonl cut), recording on would put the new turn's lines where
 * those turns' lines were, and every reader would show the wrong ones.
 */
function requireRecordedStream(dir: string, manifest: Manifest, at: LogPosition): void {
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
