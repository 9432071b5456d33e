/**
 * Splits claude's stdout into lines without ever copying or re-encoding the bytes that pass
 * through: the recorder stores chunks as they come, and this only tells where lines end.
 */
const LF = 0x0a;
const CR = 0x0d;

export class LineFramer {
  private pending: Buffer[] = [];

  /** Feed one chunk; `onLine` gets every line it completes, without its "\n". */
  push(chunk: Buffer, onLine: (line: Buffer) => void): void {
    let start = 0;
    let newline = chunk.indexOf(LF, start);
    while (newline !== -1) {
      let line = chunk.subarray(start, newline);
      if (this.pending.length > 0) {
        this.pending.push(line);
        line = Buffer.concat(this.pending);
        this.pending = [];
      }
      onLine(line);
      start = newline + 1;
      newline = chunk.indexOf(LF, start);
    }
    // Keep a copy-free view of the tail; a chunk's memory is not reused by Node streams.
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
  }

  /** At end of stream: the last line if it had no "\n" (a process killed mid-write). */
  end(onLine: (line: Buffer) => void): void {
    if (this.pending.length === 0) return;
    const line = Buffer.concat(this.pending);
    this.pending = [];
    onLine(line);
  }

  get hasPartialLine(): boolean {
    return this.pending.length > 0;
  }
}

/** A line too long to hold: where it lies in the file read (its "\n" not counted). */
export interface LongLine {
  start: number;
  length: number;
}

/**
 * As LineFramer, for a file read from its start, but a line longer than `limit` bytes is never
 * assembled: once it passes the limit its bytes are let go, and it comes out as a LongLine, its
 * place in the file, for the reader to take a window at a time.
 */
export class BoundedLineFramer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Where the line being read starts in the file, and whether it is already past the limit. */
  private lineStart = 0;
  private long = false;
  private offset = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer, onLine: (line: Buffer | LongLine) => void): void {
    let start = 0;
    for (let newline = chunk.indexOf(LF); newline !== -1; newline = chunk.indexOf(LF, start)) {
      this.take(chunk.subarray(start, newline));
      onLine(this.cut());
      start = newline + 1;
      this.lineStart = this.offset + start;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
    this.offset += chunk.length;
  }

  /** At end of file: the last line if it had no "\n". */
  end(onLine: (line: Buffer | LongLine) => void): void {
    if (this.long || this.pendingBytes > 0) onLine(this.cut());
  }

  private take(piece: Buffer): void {
    this.pendingBytes += piece.length;
    if (this.long) return;
    this.pending.push(piece);
    if (this.pendingBytes > this.limit) {
      this.long = true;
      this.pending = [];
    }
  }

  private cut(): Buffer | LongLine {
    const line: Buffer | LongLine = this.long
      ? { start: this.lineStart, length: this.pendingBytes }
      : this.pending.length === 1
        ? this.pending[0]!
        : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.long = false;
    return line;
  }
}

/** The text of a line for parsing: UTF-8, a Windows "\r" before the "\n" dropped. */
export function lineText(line: Buffer): string {
  const end = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
  return line.toString("utf8", 0, end);
}

/** Parse one NDJSON line; null when it is not JSON (kept in the recording, warned about). */
export function parseLine(line: Buffer): unknown | null {
  const text = lineText(line);
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Split a whole recorded file into lines (used when loading a bundle). */
export function splitLines(data: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  const framer = new LineFramer();
  framer.push(data, (l) => lines.push(l));
  framer.end((l) => lines.push(l));
  return lines;
}

/** Lines longer than this are parsed in a reduced form first (see parseEventLine). */
export const LARGE_LINE_BYTES = 64 * 1024;
/** What a reduced parse keeps of each string value: far more than the terminal shows of a tool's output. */
export const KEPT_STRING_BYTES = 16 * 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * A line's JSON for classifying and showing it (not for storing: the recording keeps every byte).
 * A tool's output can make one line megabytes long, and parsing such lines whole was most of the
 * recorder's cost. So a line over 64 KB is first parsed with every string value over 16 KB cut
 * to its first 16 KB; if it is a tool result (a `user` line), that is what is used: the terminal
 * shows the first lines of a tool's output, never more. Any other line (a permission request
 * carrying a file to write, say; a prompt's echo with an image, whose size replay shows) is
 * parsed whole.
 */
export function parseEventLine(line: Buffer): unknown | null {
  if (line.length <= LARGE_LINE_BYTES) return parseLine(line);
  const reduced = reduceLongStrings(line);
  if (reduced) {
    const json = parseLine(reduced);
    if (
      json !== null &&
      typeof json === "object" &&
      (json as { type?: unknown }).type === "user" &&
      !carriesImage(json)
    )
      return json;
  }
  return parseLine(line);
}

/** A prompt with an image: parsed whole, since the image's size is shown (`[image: shot.png 120 KB]`). */
function carriesImage(json: object): boolean {
  const content = (json as { message?: { content?: unknown } }).message?.content;
  return Array.isArray(content) && content.some((block) => (block as { type?: unknown } | null)?.type === "image");
}

/**
 * The line with every string literal over KEPT_STRING_BYTES cut to that many bytes (at a
 * character boundary, never inside an escape), or null when it does not look like JSON. Finds
 * quotes with Buffer.indexOf (memchr), so it costs far less than parsing.
 */
export function reduceLongStrings(line: Buffer): Buffer | null {
  const pieces: Buffer[] = [];
  let copied = 0; // bytes of `line` before this are in `pieces`
  let at = line.indexOf(QUOTE);
  while (at !== -1) {
    const end = closingQuote(line, at + 1);
    if (end === -1) return null;
    if (end - (at + 1) > KEPT_STRING_BYTES) {
      const cut = cutPoint(line, at + 1, at + 1 + KEPT_STRING_BYTES);
      pieces.push(line.subarray(copied, cut));
      copied = end; // resumes at the closing quote
    }
    at = line.indexOf(QUOTE, end + 1);
  }
  if (pieces.length === 0) return line;
  pieces.push(line.subarray(copied));
  return Buffer.concat(pieces);
}

/** The index of the quote that ends the string whose content starts at `from` (-1: none). */
function closingQuote(line: Buffer, from: number): number {
  let quote = line.indexOf(QUOTE, from);
  while (quote !== -1) {
    let backslashes = 0;
    while (quote - 1 - backslashes >= from && line[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = line.indexOf(QUOTE, quote + 1);
  }
  return -1;
}

/** The last point at or before `limit` where a string's content can be cut: after a whole escape and a whole UTF-8 character. */
function cutPoint(line: Buffer, start: number, limit: number): number {
  let i = start;
  let safe = start;
  while (i < limit) {
    const byte = line[i]!;
    const width =
      byte === BACKSLASH ? (line[i + 1] === 0x75 ? 6 : 2) : byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    if (i + width > limit) break;
    i += width;
    safe = i;
  }
  return safe;
}
