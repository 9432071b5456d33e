/**
 * The append-only logs of a bundle: claude's stdout byte for byte (conversation.jsonl) with each
 * line's arrival time (timing.txt, one epoch-ms number per line), claude's stderr, and what nudge
 * wrote to claude's stdin (input.jsonl + input-timing.txt). Appends are synchronous so bytes land
 * in arrival order. A write that fails (a full disk) is cut back to where it started, so a log
 * never ends in half a line; a kill -9 can at worst cut the last line short, which `open` repairs.
 * An image in a line is stored once apart (image-store.ts) and the line keeps a reference: every
 * reader gets the line back as written through conversation-reader.ts.
 */
import fs from "node:fs";
import type { BundleFiles } from "../store/store.js";
import { LineFramer } from "../claude/ndjson.js";
import { faultPoint } from "../base/fault-injection.js";
import { storeImages } from "../store/image-store.js";
import { streamLayoutSync, type StreamPoint } from "../store/conversation-pieces.js";
import { compressPiece, finishPieceSync, tidyPieces } from "../store/piece-writing.js";

/** conversation.jsonl is finished as a piece (and compressed) at a turn's end once it holds this much (conversation-pieces.ts). */
export const PIECE_BYTES = 64 << 10;

/**
 * How claude's echo of a prompt with images starts (nudge puts the images first; claude keeps the
 * order): only such a line is held back to store its images apart. Any other line, a tool's result
 * among them, is written as it arrives, as before; one that does carry an image keeps it inline.
 */
const USER_LINE = Buffer.from('{"type":"user","message":{"role":"user","content":[{"type":"image"');

/** A file opened for appending whose every write lands whole or not at all. */
class AppendFile {
  private constructor(
    readonly fd: number,
    public size: number,
  ) {}

  static open(file: string): AppendFile {
    return AppendFile.adopt(fs.openSync(file, "a+"));
  }

  static adopt(fd: number): AppendFile {
    return new AppendFile(fd, fs.fstatSync(fd).size);
  }

  /**
   * Write all of `data` (a short write is continued), or cut the file back to `rollbackTo` (by
   * default where this write started) and throw.
   */
  write(data: Buffer | string, point: string, rollbackTo = this.size): void {
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    const start = this.size;
    try {
      faultPoint(point);
      for (let done = 0; done < bytes.length;) done += fs.writeSync(this.fd, bytes, done, bytes.length - done);
    } catch (error) {
      try {
        fs.ftruncateSync(this.fd, rollbackTo);
        this.size = rollbackTo;
      } catch {
        // nothing more can be done; the reader ignores a torn last line
      }
      throw error;
    }
    this.size = start + bytes.length;
  }

  sync(): void {
    try {
      fs.fdatasyncSync(this.fd);
    } catch (error) {
      // EINVAL/ENOTSUP: a file that cannot be synced (a device, some network file systems): not a loss.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EINVAL" && code !== "ENOTSUP") throw error;
    }
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** Where a log stands: lines completed and bytes written (the next line's number and offset). */
export interface LogPosition {
  line: number;
  byte: number;
}

export class ConversationLog {
  private readonly framer = new LineFramer();
  /** Where the last complete line ends: a failed write cuts back to here, never mid-line. */
  private completeBytes: number;
  /**
   * The line being received. A prompt's echo with images (USER_LINE) is held back and written
   * whole once complete, its images stored apart (image-store.ts); any other line is written as
   * it arrives. "deciding": too few bytes yet to tell which it is.
   */
  private mode: "deciding" | "held" | "direct" = "deciding";
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** Bytes of the current line already written (a line written as it arrives). */
  private partial = 0;
  /** A turn ended with this much in conversation.jsonl: it becomes a piece at the next line's end. */
  private pieceWanted = false;
  /** Pieces being compressed (a failure leaves a plain piece, which reads the same). */
  private compressing: Promise<void> = Promise.resolve();
  private constructor(
    private readonly dir: string,
    private conversation: AppendFile,
    private readonly timing: AppendFile,
    private readonly stderr: AppendFile,
    /** Where conversation.jsonl starts in the stream (the end of the finished pieces). */
    private liveFrom: StreamPoint,
    /** Lines completed so far in the stream (the next line's number). */
    public lineCount: number,
  ) {
    this.completeBytes = conversation.size;
  }

  static open(files: BundleFiles): ConversationLog {
    const liveFrom = streamLayoutSync(files.dir).live.from;
    const conversation = AppendFile.open(files.conversation);
    let lineCount = liveFrom.line + countNewlines(files.conversation);
    if (conversation.size > 0 && lastByte(conversation.fd, conversation.size) !== 0x0a) {
      // A previous claude died mid-line: end that line so the next process starts a fresh one.
      conversation.write("\n", "log-append");
      lineCount++;
    }
    const timing = AppendFile.open(files.timing);
    const timingLines = countNewlines(files.timing);
    if (timingLines < lineCount) {
      // Times lost to a crash between the two appends: pad so line i keeps time i.
      timing.write(`${Date.now()}\n`.repeat(lineCount - timingLines), "log-append");
    }
    const log = new ConversationLog(
      files.dir,
      conversation,
      timing,
      AppendFile.open(files.stderr),
      liveFrom,
      lineCount,
    );
    // Pieces a crash left plain (or half compressed) are compressed now, behind the recording.
    log.compressing = tidyPieces(files.dir).then(
      async (plain) => {
        for (const piece of plain) await compressPiece(piece).catch(() => undefined);
      },
      () => undefined,
    );
    return log;
  }

  /** After the last complete line: where the next line starts in the stream. */
  get position(): LogPosition {
    return { line: this.lineCount, byte: this.liveFrom.byte + this.completeBytes };
  }

  /**
   * At a turn's end: once conversation.jsonl holds PIECE_BYTES, it is finished as a piece and
   * compressed behind the recording; at the session's end (`always`), whatever it holds. Done at
   * once when no line is half received, else at the end of that line.
   */
  finishPiece(o: { always: boolean }): void {
    if (this.conversation.size === 0 || (!o.always && this.conversation.size < PIECE_BYTES)) return;
    this.pieceWanted = true;
    this.finishPieceAtLineEnd();
  }

  /** Every piece compressed (or left plain by a failure). */
  async piecesSettled(): Promise<void> {
    await this.compressing;
  }

  private finishPieceAtLineEnd(): void {
    if (!this.pieceWanted || this.partial > 0 || this.heldBytes > 0 || this.completeBytes !== this.conversation.size)
      return;
    this.pieceWanted = false;
    const to = this.position;
    let finished: { fd: number; piece: string };
    try {
      finished = finishPieceSync(this.dir, this.conversation.fd, this.liveFrom, to);
    } catch {
      // Not finished (the disk refused a rename): the stream goes on in conversation.jsonl, whole.
      return;
    }
    try {
      this.conversation.close();
    } catch {
      // the piece is in place; its old descriptor is of no more use
    }
    this.conversation = AppendFile.adopt(finished.fd);
    this.liveFrom = to;
    this.completeBytes = 0;
    this.compressing = this.compressing.then(() => compressPiece(finished.piece).catch(() => undefined));
  }

  /**
   * Store a stdout chunk as is (a prompt's echo with images: once it is complete, its images
   * apart); `onLine` gets each line it completes, as claude wrote it, with its number.
   */
  appendStdout(chunk: Buffer, onLine: (line: Buffer, n: number) => void): void {
    if (this.plain(chunk)) this.conversation.write(chunk, "log-append", this.completeBytes);
    else this.routeChunk(chunk);
    const now = Date.now();
    let times = "";
    const lines: Buffer[] = [];
    this.framer.push(chunk, (line) => {
      lines.push(line);
      times += `${now}\n`;
    });
    if (times) this.timing.write(times, "log-append");
    this.completeBytes = this.conversation.size - this.partial;
    for (const line of lines) onLine(line, this.lineCount++);
    this.finishPieceAtLineEnd();
  }

  /**
   * Nearly every chunk: no line in it starts a prompt's echo with images, and none is held back.
   * Then it is written as it came, found with one search for USER_LINE (no look at each line), and
   * the state is moved to its end.
   */
  private plain(chunk: Buffer): boolean {
    const atLineStart = this.mode === "deciding";
    if (this.mode === "held" || this.heldBytes > 0) return false;
    for (let at = chunk.indexOf(USER_LINE); at !== -1; at = chunk.indexOf(USER_LINE, at + 1)) {
      if (at === 0 ? atLineStart : chunk[at - 1] === 0x0a) return false;
    }
    const last = chunk.lastIndexOf(0x0a);
    const tail = last + 1;
    const tailIsLineStart = last !== -1 || atLineStart;
    // A line begun in this chunk too short yet to tell whether it is one to hold back.
    if (
      tailIsLineStart &&
      tail < chunk.length &&
      chunk.length - tail < USER_LINE.length &&
      USER_LINE.subarray(0, chunk.length - tail).equals(chunk.subarray(tail))
    )
      return false;
    if (tail === chunk.length) this.nextLine();
    else {
      this.partial = tailIsLineStart ? chunk.length - tail : this.partial + chunk.length;
      this.mode = "direct";
    }
    return true;
  }

  /** A chunk line by line: each line written as it comes, or held back until it ends. */
  private routeChunk(chunk: Buffer): void {
    const out: Buffer[] = [];
    let verbatim = true;
    for (let start = 0; start < chunk.length;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      verbatim = this.route(chunk.subarray(start, end), newline !== -1, out) && verbatim;
      start = end;
    }
    // Every line went out as it came (one only looked like an echo for a while): the chunk itself.
    // A held-back line writes nothing until it ends.
    if (verbatim) this.conversation.write(chunk, "log-append", this.completeBytes);
    else if (out.length > 0) this.conversation.write(Buffer.concat(out), "log-append", this.completeBytes);
  }

  /**
   * A piece of one line (`ends`: with its "\n"): written to `out`, or held back until the line
   * ends. True when `out` got the piece itself and nothing else.
   */
  private route(piece: Buffer, ends: boolean, out: Buffer[]): boolean {
    if (this.mode === "deciding" && this.heldBytes === 0 && piece.length >= USER_LINE.length) {
      // The usual case, the line's start all in this piece: told apart without a copy.
      if (piece.compare(USER_LINE, 0, USER_LINE.length, 0, USER_LINE.length) === 0) this.mode = "held";
      else this.mode = "direct";
    }
    if (this.mode === "direct") {
      out.push(piece);
      this.partial += piece.length;
      if (ends) this.nextLine();
      return true;
    }
    this.held.push(piece);
    this.heldBytes += piece.length;
    if (this.mode === "deciding") {
      const head = Buffer.concat(this.held, Math.min(this.heldBytes, USER_LINE.length));
      if (!head.equals(USER_LINE.subarray(0, head.length))) {
        out.push(...this.held);
        this.partial = this.heldBytes;
        this.held = [];
        this.heldBytes = 0;
        this.mode = "direct";
        if (ends) this.nextLine();
        return false;
      }
      if (head.length === USER_LINE.length) this.mode = "held";
    }
    if (ends) {
      out.push(storedLine(this.dir, Buffer.concat(this.held, this.heldBytes)));
      this.nextLine();
    }
    return false;
  }

  private nextLine(): void {
    this.mode = "deciding";
    this.held = [];
    this.heldBytes = 0;
    this.partial = 0;
  }

  /** At a process's end: a last line without "\n" is terminated, counted and handed on. */
  endOfStream(onLine: (line: Buffer, n: number) => void): void {
    this.framer.end((line) => {
      const out: Buffer[] = [];
      this.route(Buffer.from("\n"), true, out);
      this.conversation.write(Buffer.concat(out), "log-append", this.completeBytes);
      this.timing.write(`${Date.now()}\n`, "log-append");
      this.completeBytes = this.conversation.size;
      onLine(line, this.lineCount++);
    });
  }

  appendStderr(chunk: Buffer): void {
    this.stderr.write(chunk, "log-append");
  }

  /** Make what was appended durable (called at each turn's end, not per chunk). */
  sync(): void {
    for (const file of [this.conversation, this.timing, this.stderr]) file.sync();
  }

  close(): void {
    for (const file of [this.conversation, this.timing, this.stderr]) file.close();
  }
}

/**
 * A line as the log keeps it: its images in `images/` (image-store.ts). If an image cannot be
 * written (a full disk, say), the line keeps it inline: a copy too many, never a line lost.
 */
function storedLine(dir: string, line: Buffer): Buffer {
  try {
    return storeImages(dir, line);
  } catch {
    return line;
  }
}

/** input.jsonl: every line nudge wrote to claude's stdin, exactly as written (its images apart), with its time. */
export class InputLog {
  private constructor(
    private readonly dir: string,
    private readonly input: AppendFile,
    private readonly timing: AppendFile,
    public lineCount: number,
  ) {}

  static open(files: BundleFiles): InputLog {
    const input = AppendFile.open(files.input);
    const timing = AppendFile.open(files.inputTiming);
    const lines = countNewlines(files.input);
    const times = countNewlines(files.inputTiming);
    if (times < lines) timing.write(`${Date.now()}\n`.repeat(lines - times), "log-append");
    return new InputLog(files.dir, input, timing, lines);
  }

  /** Record a line before it is written to claude (a line claude never got is marked by the turn's end, not lost). */
  append(line: string): void {
    this.input.write(storedLine(this.dir, Buffer.from(line.endsWith("\n") ? line : `${line}\n`)), "log-append");
    this.timing.write(`${Date.now()}\n`, "log-append");
    this.lineCount++;
  }

  sync(): void {
    this.input.sync();
    this.timing.sync();
  }

  close(): void {
    this.input.close();
    this.timing.close();
  }
}

function lastByte(fd: number, size: number): number {
  const one = Buffer.alloc(1);
  fs.readSync(fd, one, 0, 1, size - 1);
  return one[0]!;
}

/** Count "\n" in a file, streaming it in blocks (a long session's log is never read whole). */
function countNewlines(file: string): number {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch {
    return 0;
  }
  try {
    const block = Buffer.alloc(1 << 20);
    let count = 0;
    for (let read = fs.readSync(fd, block); read > 0; read = fs.readSync(fd, block)) {
      const view = block.subarray(0, read);
      for (let i = view.indexOf(0x0a); i !== -1; i = view.indexOf(0x0a, i + 1)) count++;
    }
    return count;
  } finally {
    fs.closeSync(fd);
  }
}
