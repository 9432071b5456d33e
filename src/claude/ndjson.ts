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
