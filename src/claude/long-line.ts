/**
 * A line too long to hold (a 50 MB tool input), read from its file a window at a time: what the
 * readers of huge lines (huge-line.ts, rewrite-lines.ts) look at it through, as they would look at
 * a Buffer. Reads are synchronous, as a Buffer's indexing is: a window is 1 MB, from the page cache.
 */
import { readSync } from "node:fs";
import type { LongLine } from "./ndjson.js";

/** What a huge line's reader needs of its bytes: a Buffer has it all, and so does a FileLine. */
export interface LineBytes {
  readonly length: number;
  at(index: number): number | undefined;
  indexOf(byte: number, from?: number): number;
  includes(bytes: Buffer): boolean;
  toString(encoding: "utf8", from?: number, to?: number): string;
}

const WINDOW = 1 << 20;
/** A window starts this far before the byte asked for: readers look back a few bytes (an escape's start). */
const BEHIND = 64;

export class FileLine implements LineBytes {
  /** One buffer per line, read into again and again: a 50 MB line read in 1 MB windows leaves no trail of garbage. */
  private readonly buffer: Buffer;
  private window: Buffer = Buffer.alloc(0);
  private windowStart = 0;
  readonly length: number;
  private readonly start: number;

  constructor(
    private readonly fd: number,
    line: LongLine,
  ) {
    this.start = line.start;
    this.length = line.length;
    this.buffer = Buffer.allocUnsafe(Math.min(WINDOW, line.length));
  }

  at(index: number): number | undefined {
    const i = index - this.windowStart;
    if (i >= 0 && i < this.window.length) return this.window[i];
    if (index < 0 || index >= this.length) return undefined;
    this.load(Math.max(0, index - BEHIND));
    return this.window[index - this.windowStart];
  }

  indexOf(byte: number, from = 0): number {
    for (let at = Math.max(0, from); at < this.length; at = this.windowStart + this.window.length) {
      if (at < this.windowStart || at >= this.windowStart + this.window.length) this.load(at);
      const found = this.window.indexOf(byte, at - this.windowStart);
      if (found !== -1) return this.windowStart + found;
    }
    return -1;
  }

  includes(bytes: Buffer): boolean {
    // Windows overlap by the needle's length, so one that straddles two is still whole in one.
    for (let at = 0; at < this.length; at += WINDOW - bytes.length) {
      if (this.load(at).includes(bytes)) return true;
      if (at + WINDOW >= this.length) break;
    }
    return false;
  }

  toString(_encoding: "utf8", from = 0, to = this.length): string {
    const end = Math.min(to, this.length);
    if (from < this.windowStart || end > this.windowStart + this.window.length) {
      if (end - from > WINDOW) return this.read(Buffer.allocUnsafe(end - from), from).toString("utf8");
      this.load(from);
    }
    return this.window.toString("utf8", from - this.windowStart, end - this.windowStart);
  }

  /**
   * The bytes [from, to) in pieces of at most a window, for writing out. Each piece is the line's
   * one buffer: it is read over when the next is asked for, so write it (and wait) before that.
   */
  *pieces(from: number, to: number): Generator<Buffer> {
    for (let at = from; at < to; at += WINDOW) yield this.load(at).subarray(0, Math.min(to - at, WINDOW));
  }

  /** The whole line in a new buffer: for the rare reader that must have it all. */
  whole(): Buffer {
    return this.read(Buffer.allocUnsafe(this.length), 0);
  }

  private load(from: number): Buffer {
    this.window = this.read(this.buffer.subarray(0, Math.min(this.buffer.length, this.length - from)), from);
    this.windowStart = from;
    return this.window;
  }

  /** `into` filled from the line's byte `from` on. */
  private read(into: Buffer, from: number): Buffer {
    for (let done = 0; done < into.length;) {
      const n = readSync(this.fd, into, done, into.length - done, this.start + from + done);
      if (n === 0) throw new Error(`the file ended inside a line it held (byte ${this.start + from + done})`);
      done += n;
    }
    return into;
  }
}

/** The bytes [from, to) of a line, as pieces to write: views of a Buffer, or windows read from the file (see pieces). */
export function* piecesOf(line: Buffer | FileLine, from: number, to: number): Generator<Buffer> {
  if (line instanceof FileLine) yield* line.pieces(from, to);
  else if (to > from) yield line.subarray(from, to);
}
