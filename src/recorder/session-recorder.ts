/**
 * Records one nudge session: tees claude's stdout into the bundle, follows turns through the
 * stream, and at each turn's end snapshots the code, copies claude's transcript and rewrites the
 * manifest atomically. It knows nothing about terminals; listeners get the parsed events.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { writeFileAtomic, copyFileAtomic, ensureDir } from "../bundle/atomic-write.js";
import type { Manifest, Turn, TurnResult } from "../bundle/manifest-schema.js";
import { acquireLock, type SessionLock } from "../bundle/session-lock.js";
import { bundleFiles, patchName, writeManifest, type BundleFiles } from "../bundle/store.js";
import { lineText, parseLine, splitLines } from "../claude/ndjson.js";
import { toStreamEvent, type ResultEvent, type StreamEvent } from "../claude/stream-events.js";
import { findTranscript } from "../claude/transcript.js";
import * as git from "../snapshot/git.js";
import { snapshotRef, takeSnapshot } from "../snapshot/snapshotter.js";
import { InternalError, errorMessage } from "../errors.js";
import { ConversationLog } from "./conversation-log.js";

export interface RecorderListener {
  event?(event: StreamEvent, line: number): void;
  warning?(message: string): void;
}

interface OpenTurn {
  n: number;
  prompt: string;
  startedAt: string;
  fromLine: number;
  interruptRequested: boolean;
  result: ResultEvent | null;
  claudeSessionId: string | null;
  lastAssistantUuid: string | null;
  done: Promise<Turn>;
  resolve: (turn: Turn) => void;
  reject: (error: Error) => void;
}

export interface RecorderContext {
  claudeConfigDir: string;
  /** Where claude runs; its transcripts are filed under this path. */
  cwd: string;
  /** Folders inside the work tree that snapshots leave out (nudge's store, claude's config). */
  exclude: string[];
}

export class SessionRecorder {
  private open: OpenTurn | null = null;
  /** claude's total_cost_usd so far in the current process (it is cumulative per process). */
  private processCost = 0;
  private finishing: Promise<void> = Promise.resolve();
  private readonly listeners: RecorderListener[] = [];

  private constructor(
    private manifest_: Manifest,
    readonly files: BundleFiles,
    private readonly log: ConversationLog,
    private readonly indexFile: string,
    private readonly context: RecorderContext,
    private readonly lock: SessionLock,
  ) {}

  /**
   * Start recording into a bundle folder: lock it, open the logs, and for a new session
   * snapshot turn 0 (HEAD plus uncommitted work) before claude touches anything.
   */
  static async start(
    dir: string,
    manifest: Manifest,
    indexFile: string,
    context: RecorderContext,
    listener?: RecorderListener,
  ): Promise<SessionRecorder> {
    const files = bundleFiles(dir);
    await ensureDir(files.changes);
    await ensureDir(files.transcripts);
    const lock = await acquireLock(files.lock, manifest.id);
    try {
      const recorder = new SessionRecorder(manifest, files, ConversationLog.open(files), indexFile, context, lock);
      if (listener) recorder.listen(listener);
      if (manifest.turns.length === 0) await recorder.recordTurnZero();
      else await recorder.recoverUnsavedTurn();
      recorder.manifest_ = { ...recorder.manifest_, state: "recording", updatedAt: now() };
      await writeManifest(dir, recorder.manifest_);
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

  /**
   * Open a turn. Its prompt is written to the manifest before claude sees it, so no crash can
   * lose it; the returned promise settles once the turn is saved.
   */
  async beginTurn(prompt: string): Promise<{ saved: Promise<Turn> }> {
    const open = this.openTurn(prompt, this.log.lineCount);
    const pendingTurn = { n: open.n, prompt, startedAt: open.startedAt, fromLine: open.fromLine };
    this.manifest_ = { ...this.manifest_, pendingTurn, updatedAt: now() };
    await writeManifest(this.files.dir, this.manifest_);
    // Wrapped: an async function returning a bare promise would wait for the whole turn.
    return { saved: open.done };
  }

  private openTurn(prompt: string, fromLine: number, startedAt = now()): OpenTurn {
    if (this.open) throw new InternalError("a turn is already in progress");
    let resolve!: (turn: Turn) => void;
    let reject!: (error: Error) => void;
    const done = new Promise<Turn>((res, rej) => ((resolve = res), (reject = rej)));
    this.open = {
      n: this.manifest_.turns.length,
      prompt,
      startedAt,
      fromLine,
      interruptRequested: false,
      result: null,
      claudeSessionId: null,
      lastAssistantUuid: null,
      done,
      resolve,
      reject,
    };
    return this.open;
  }

  markInterruptRequested(): void {
    if (this.open) this.open.interruptRequested = true;
  }

  /** A new claude process: its cost counter starts from zero again, and the lock names it. */
  async processStarted(pid: number | undefined): Promise<void> {
    this.processCost = 0;
    await this.lock.setClaude(pid);
  }

  handleStdout(chunk: Buffer): void {
    this.log.appendStdout(chunk, (line, n) => this.handleLine(line, n));
  }

  handleStderr(chunk: Buffer): void {
    this.log.appendStderr(chunk);
  }

  /** claude is gone: a turn still open is recorded as incomplete, with the code as claude left it. */
  async processExited(): Promise<Turn | null> {
    this.log.endOfStream((line, n) => this.handleLine(line, n));
    await this.finishing;
    const open = this.open;
    if (!open) return null;
    this.finishTurn(open);
    return open.done;
  }

  /** End the session: the manifest says complete and the lock is released. */
  async close(): Promise<void> {
    await this.finishing;
    try {
      this.log.sync();
      this.log.close();
      this.manifest_ = { ...this.manifest_, state: "complete", updatedAt: now() };
      await writeManifest(this.files.dir, this.manifest_);
    } finally {
      await this.lock.release(); // whatever failed, the session must not stay locked
    }
  }

  private handleLine(line: Buffer, n: number): void {
    const json = parseLine(line);
    const event = toStreamEvent(json, json === null ? lineText(line) : "");
    if (event.type === "invalid" && event.text.trim() !== "") {
      this.warn(`claude wrote a line that is not JSON (line ${n + 1}); kept as is`);
    }
    this.observe(event);
    for (const l of this.listeners) l.event?.(event, n);
    if (event.type === "result" && this.open && !this.open.result) {
      this.open.result = event;
      this.finishTurn(this.open);
    }
  }

  private observe(event: StreamEvent): void {
    if (event.type === "system" && event.subtype === "init") {
      const claude = {
        version: event.claude_code_version ?? this.manifest_.claude.version,
        model: event.model ?? this.manifest_.claude.model,
      };
      this.manifest_ = { ...this.manifest_, claude };
    }
    if (!this.open) return;
    if ("session_id" in event && typeof event.session_id === "string") this.open.claudeSessionId = event.session_id;
    if (event.type === "assistant" && event.uuid && !event.parent_tool_use_id) this.open.lastAssistantUuid = event.uuid;
  }

  /** Snapshot and save the turn; chained so turns are finished strictly in order. */
  private finishTurn(open: OpenTurn): void {
    const endLine = this.log.lineCount;
    this.open = null;
    // `finishing` itself never rejects, so one failed save cannot wedge the turns after it.
    this.finishing = this.finishing
      .then(() => this.saveTurn(open, endLine))
      .then(open.resolve, (error: unknown) =>
        open.reject(new InternalError(`could not save turn ${open.n}: ${errorMessage(error)}`, { cause: error })),
      );
  }

  private async saveTurn(open: OpenTurn, endLine: number): Promise<Turn> {
    const previous = this.manifest_.turns.at(-1)!;
    const code = await this.captureCode(open.n, previous.snapshot.commit, previous.snapshot.tree, `turn ${open.n}\n\n${open.prompt}`);
    this.log.sync();
    const transcript = open.claudeSessionId ? await this.copyTranscript(open.claudeSessionId) : null;
    const turn: Turn = {
      n: open.n,
      prompt: open.prompt,
      status: open.result ? (open.interruptRequested ? "interrupted" : "complete") : "incomplete",
      startedAt: open.startedAt,
      endedAt: now(),
      lines: { from: open.fromLine, to: endLine },
      result: open.result ? this.resultOf(open.result) : null,
      claudeSessionId: open.claudeSessionId,
      lastAssistantUuid: open.lastAssistantUuid,
      ...code,
      transcript,
    };
    // A turn that reached claude consumes a pending fork point: later runs resume this turn's session.
    const resume = open.claudeSessionId ? null : this.manifest_.resume;
    this.manifest_ = { ...this.manifest_, resume, pendingTurn: null, updatedAt: now(), turns: [...this.manifest_.turns, turn] };
    await writeManifest(this.files.dir, this.manifest_);
    return turn;
  }

  /**
   * nudge was killed (or the machine died) mid-turn: claude's lines reached conversation.jsonl
   * but the turn was never saved. Save it now from those lines — complete if its result had
   * arrived, incomplete otherwise — with the code as it is found now.
   */
  private async recoverUnsavedTurn(): Promise<void> {
    const last = this.manifest_.turns.at(-1)!;
    const pending = this.manifest_.pendingTurn;
    if (!pending && this.log.lineCount <= last.lines.to) return;
    const fromLine = pending?.fromLine ?? last.lines.to;
    const open = this.openTurn(pending?.prompt ?? "(prompt not recorded)", fromLine, pending?.startedAt);
    const lines = splitLines(readFileSync(this.files.conversation)).slice(fromLine, this.log.lineCount);
    for (const line of lines) {
      const event = toStreamEvent(parseLine(line), "");
      this.observe(event);
      if (event.type === "result" && !open.result) open.result = event;
    }
    this.finishTurn(open);
    try {
      const turn = await open.done;
      this.warn(`recovered turn ${turn.n} (${turn.status}), which nudge had not saved when it stopped`);
    } catch (error) {
      // Never let one unrecoverable turn lock the session for good: its lines stay in conversation.jsonl.
      this.manifest_ = { ...this.manifest_, pendingTurn: null };
      this.warn(`could not recover the turn nudge had not saved (${errorMessage(error)}); its lines stay in conversation.jsonl`);
    }
  }

  private async recordTurnZero(): Promise<void> {
    const { root, baseCommit } = this.manifest_.repo;
    const baseTree = baseCommit ? await git.treeOf(root, baseCommit) : await git.emptyTree(root);
    const startedAt = now();
    const code = await this.captureCode(0, baseCommit, baseTree, "turn 0 (starting state)");
    const turn: Turn = {
      n: 0,
      prompt: null,
      status: "complete",
      startedAt,
      endedAt: now(),
      lines: { from: this.log.lineCount, to: this.log.lineCount },
      result: null,
      claudeSessionId: null,
      lastAssistantUuid: null,
      ...code,
      transcript: null,
    };
    this.manifest_ = { ...this.manifest_, turns: [turn] };
  }

  /** Snapshot the work tree as turn n and write its patch: the code half of a turn's entry. */
  private async captureCode(n: number, parent: string | null, previousTree: string, what: string): Promise<Pick<Turn, "head" | "snapshot" | "patch">> {
    const snapshot = await takeSnapshot({
      root: this.manifest_.repo.root,
      indexFile: this.indexFile,
      ref: snapshotRef(this.manifest_.id, n),
      parent,
      previousTree,
      message: `nudge ${this.manifest_.id} ${what}`,
      exclude: this.context.exclude,
    });
    this.warnUnreadable(snapshot.unreadable);
    const file = patchName(n);
    await writeFileAtomic(path.join(this.files.dir, file), snapshot.patch);
    return {
      head: snapshot.head,
      snapshot: { commit: snapshot.commit, tree: snapshot.tree, ref: snapshot.ref },
      patch: { file, sha256: snapshot.patchSha256, bytes: snapshot.patch.length, ...snapshot.stats },
    };
  }

  /**
   * Keep a copy of claude's own transcript in the bundle, so the conversation can be resumed on
   * another machine or after claude's config is gone. Missing is a warning, not a failure.
   */
  private async copyTranscript(claudeSessionId: string): Promise<string | null> {
    const source = await findTranscript(this.context.claudeConfigDir, this.context.cwd, claudeSessionId);
    if (!source) {
      this.warn(`claude's transcript for ${claudeSessionId} was not found; resuming this turn elsewhere may not work`);
      return null;
    }
    const name = `claude/${claudeSessionId}.jsonl`;
    await copyFileAtomic(source, path.join(this.files.dir, name));
    return name;
  }

  private warnUnreadable(files: string[]): void {
    if (files.length === 0) return;
    this.warn(`git could not read ${files.slice(0, 5).join(", ")}${files.length > 5 ? ` and ${files.length - 5} more` : ""}; the snapshot keeps their last readable version`);
  }

  private warn(message: string): void {
    for (const l of this.listeners) l.warning?.(message);
  }

  private resultOf(event: ResultEvent): TurnResult {
    const total = event.total_cost_usd;
    const perModel = event.model_usage_since_last_result;
    const cost = perModel
      ? Object.values(perModel).reduce((sum, m) => sum + (m.costUSD ?? 0), 0)
      : total !== undefined
        ? total - this.processCost
        : null;
    if (total !== undefined) this.processCost = total;
    return {
      subtype: event.subtype,
      isError: event.is_error,
      costUsd: cost,
      durationMs: event.duration_ms ?? null,
      numTurns: event.num_turns ?? null,
      usage: event.usage ?? null,
    };
  }
}

function now(): string {
  return new Date().toISOString();
}
