/**
 * What every part of a session's recording shares: the manifest as recorded so far, the chain of
 * captures and saves, the logs, and the writes they all make (a saved turn, the header, a warning).
 */
import type { Manifest, ManifestHeader, PendingTurn, Turn, TurnResult } from "../store/manifest-schema.js";
import type { HeldLock } from "../store/locks.js";
import { headerOf, writeHeader, type BundleFiles } from "../store/store.js";
import { summaryOf } from "../store/summary.js";
import type { TurnJournal } from "../store/turn-journal.js";
import type { StreamEvent } from "../claude/stream-events.js";
import { faultPoint } from "../base/fault-injection.js";
import { RecordingGit } from "../snapshot/git-channels.js";
import type { PrivateIndex } from "../snapshot/private-index.js";
import type { ConversationLog, InputLog } from "./conversation-log.js";
import type { TranscriptSync } from "./transcript-sync.js";
import type { TurnFollower } from "./turn-follower.js";
import type { SaveContext } from "./turn-save.js";
import type { TurnHandle } from "./open-turn.js";

export interface RecorderListener {
  event?(event: StreamEvent, line: number): void;
  warning?(message: string): void;
  /** claude began a turn by itself (a background task ended): no prompt of the frontend's opened it. */
  claudeTurn?(turn: TurnHandle): void;
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

/**
 * What is known the moment claude's result arrives (or claude is gone): enough for the end-of-turn
 * line's outcome, time and cost, before any of the turn's code is captured.
 */
export type FinishedTurn = Pick<Turn, "n" | "status" | "result" | "startedAt" | "endedAt">;

/** A turn in flight: what the stream has told about it so far. */
export interface OpenTurn {
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

/** The parts of a recording that last as long as it does. */
export interface RecorderParts {
  files: BundleFiles;
  log: ConversationLog;
  input: InputLog;
  journal: TurnJournal;
  index: PrivateIndex;
  transcripts: TranscriptSync;
  lock: HeldLock;
  sharedWith?: RecorderContext["sharedWith"];
  onSaved?: RecorderContext["turnSaved"];
}

export class RecorderState {
  open: OpenTurn | null = null;
  /** Saves run one after another, in turn order; this never rejects (each turn's own promise does). */
  saving: Promise<void> = Promise.resolve();
  private headerWrite: Promise<void> = Promise.resolve();
  readonly listeners: RecorderListener[] = [];
  /**
   * The newest captured tree: what the next turn starts from unless the user changed something.
   * A promise: a turn's tree is written behind the next prompt, and every later scan of the index waits for it.
   */
  latestTree: Promise<string>;
  /** The head of the session's snapshot chain once every save so far is done. */
  lastCommit: string | null;
  /** Turns begun in this process or recovered: the next turn's number. */
  nextN: number;
  /**
   * The newest capture of the work tree (a turn's end, or the user's edits beside a prompt), still
   * running while claude may already work on the next prompt: claude's tools wait for it (see
   * edits-gate.ts), so nothing of claude's next turn can be in it. Settled: nothing to wait for.
   */
  capture: Promise<boolean> = Promise.resolve(true);
  /** The first save that failed: no later turn is saved out of order after it. */
  saveBlocked: Error | null = null;
  /** claude's total_cost_usd so far in the current process (it is cumulative per process). */
  processCost = 0;
  /** A background task's end was told to claude during a turn: an init after it, with no turn open, is claude's turn. */
  taskNotified = false;
  /** In this process: a turn still open is not in the manifest yet. */
  heardFromClaude = false;
  /** The private index is kept for the next process (see `RecorderContext.keptIndexState`). */
  keepIndex = false;
  goesOn = false;
  /** git processes kept for the recording: each turn's patch and ref without starting two more. */
  readonly git: RecordingGit;

  constructor(
    public manifest: Manifest,
    readonly parts: RecorderParts,
  ) {
    this.git = new RecordingGit(manifest.repo.root);
    const last = manifest.turns.at(-1);
    this.latestTree = Promise.resolve(last?.snapshot.tree ?? "");
    this.lastCommit = last?.snapshot.commit ?? null;
    this.nextN = Math.max(manifest.turns.length, ...manifest.unsaved.map((u) => u.n + 1));
  }

  /** Has every turn begun been saved? */
  get allSaved(): boolean {
    return this.open === null && this.nextN <= (this.manifest.turns.at(-1)?.n ?? -1) + 1;
  }

  saveContext(): SaveContext {
    return {
      manifest: this.manifest,
      dir: this.parts.files.dir,
      parentCommit: this.lastCommit,
      transcripts: this.parts.transcripts,
      git: this.git,
      sharedWith: this.parts.sharedWith,
      warn: (message) => this.warn(message),
    };
  }

  /** Step 2 done: the turn record is durable; the header's summary follows it. */
  async turnSaved(turn: Turn): Promise<void> {
    this.parts.journal.append({ type: "turn", ...turn });
    faultPoint("after-turn-record");
    this.lastCommit = turn.snapshot.commit;
    this.nextN = Math.max(this.nextN, turn.n + 1);
    const turns = [...this.manifest.turns, turn];
    // A turn that reached claude consumes a pending fork point: later runs resume this turn's session.
    const resume = turn.claudeSessionId ? null : this.manifest.resume;
    this.manifest = {
      ...this.manifest,
      resume,
      turns,
      unsaved: this.manifest.unsaved.filter((u) => u.n !== turn.n),
      summary: summaryOf(turns),
      updatedAt: now(),
    };
    await this.writeHeader();
    this.parts.onSaved?.(this.manifest.id);
    this.parts.log.finishPiece({ always: false });
  }

  /** Header writes are serialized, so an older header can never land after a newer one. */
  writeHeader(): Promise<void> {
    const header: ManifestHeader = headerOf(this.manifest);
    const write = this.headerWrite.then(() => writeHeader(this.parts.files.dir, header));
    this.headerWrite = write.catch(() => undefined);
    return write;
  }

  /** `capture` is now the newest one: claude's tools wait until it is recorded (or has failed). */
  holdToolsUntil(capture: Promise<unknown>): void {
    this.capture = capture.then(
      () => true,
      () => false,
    );
  }

  warnUnreadable(files: string[]): void {
    if (files.length === 0) return;
    this.warn(
      `git could not read ${files.slice(0, 5).join(", ")}${files.length > 5 ? ` and ${files.length - 5} more` : ""}; the snapshot keeps their last readable version`,
    );
  }

  warn(message: string): void {
    for (const l of this.listeners) l.warning?.(message);
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

export function now(): string {
  return new Date().toISOString();
}
