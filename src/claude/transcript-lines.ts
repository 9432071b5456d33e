/**
 * Claude's own transcripts read as untrusted input: a regular file only (a link in claude's folder
 * is never followed), read in chunks, never more than MOST_READ_BYTES of it, and a line longer
 * than MOST_LINE_BYTES (a 600 MB line) is not held: it comes out with each long string cut (a
 * note in it says how much was left out), read from the file a window at a time, so a huge prompt
 * still reads as a prompt; a line that is not JSON comes out as a short text line saying so, which
 * every reader shows as a raw line. Nothing here writes.
 */
import { constants, promises as fs } from "node:fs";
import { cutLongStrings } from "./json-bytes.js";
import { FileLine } from "./long-line.js";
import { KEPT_STRING_BYTES } from "./ndjson.js";

const MOST_LINE_BYTES = 16 << 20;
export const MOST_READ_BYTES = 256 << 20;
const CHUNK = 1 << 20;

export interface TranscriptLine {
  n: number;
  /** Byte offset of the line in the file. */
  at: number;
  bytes: Buffer;
}

/** Open a transcript for reading, refusing links and anything but a regular file. */
async function openTranscript(file: string): Promise<fs.FileHandle> {
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw Object.assign(new Error(`not a regular file: ${file}`), { code: "EINVAL" });
  }
  return handle;
}

/**
 * Every line of `file` from byte `from`, up to `most` bytes read. `cut` in the outcome says the
 * file went on past what was read (its size then).
 */
export async function readTranscriptLines(
  file: string,
  o: { from?: number; most?: number } = {},
): Promise<{ lines: TranscriptLine[]; size: number; cut: boolean }> {
  const lines: TranscriptLine[] = [];
  const size = await eachTranscriptLine(file, (line) => void lines.push(line), o);
  const most = o.most ?? MOST_READ_BYTES;
  return { lines, size, cut: size - (o.from ?? 0) > most };
}

/** Call `each` for every line (see readTranscriptLines); returns the file's size. */
export async function eachTranscriptLine(
  file: string,
  each: (line: TranscriptLine) => void,
  o: { from?: number; most?: number } = {},
): Promise<number> {
  const handle = await openTranscript(file);
  try {
    const size = (await handle.stat()).size;
    const start = o.from ?? 0;
    const end = Math.min(size, start + (o.most ?? MOST_READ_BYTES));
    const buffer = Buffer.alloc(CHUNK);
    let pieces: Buffer[] = [];
    let held = 0;
    let dropped = 0; // bytes of the current line not held (it is too long)
    let lineStart = start;
    let n = 0;
    const emit = () => {
      const bytes = dropped > 0 ? cutLine(lineStart, dropped) : Buffer.concat(pieces, held);
      each({ n: n++, at: lineStart, bytes });
      pieces = [];
      held = 0;
      dropped = 0;
    };
    for (let at = start; at < end;) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, end - at), at);
      if (bytesRead === 0) break;
      let from = 0;
      for (let nl = buffer.indexOf(0x0a, 0); nl !== -1 && nl < bytesRead; nl = buffer.indexOf(0x0a, from)) {
        take(buffer.subarray(from, nl));
        emit();
        lineStart = at + nl + 1;
        from = nl + 1;
      }
      if (from < bytesRead) take(buffer.subarray(from, bytesRead));
      at += bytesRead;
    }
    if (held > 0 || dropped > 0) emit();
    return size;

    function cutLine(at: number, length: number): Buffer {
      const cut = cutLongStrings(new FileLine(handle.fd, { start: at, length }), KEPT_STRING_BYTES, MOST_LINE_BYTES);
      return Buffer.from(cut ?? tooLongPlaceholder(length));
    }

    function take(part: Buffer): void {
      if (part.length === 0) return;
      if (dropped > 0 || held + part.length > MOST_LINE_BYTES) {
        dropped += held + part.length;
        pieces = [];
        held = 0;
        return;
      }
      pieces.push(Buffer.from(part)); // the chunk buffer is reused
      held += part.length;
    }
  } finally {
    await handle.close();
  }
}

/** What a line too long to hold comes out as (a raw text line, so every reader copes with it). */
function tooLongPlaceholder(bytes: number): string {
  return `(a line of ${bytes.toLocaleString("en")} bytes in claude's transcript, too long to read)`;
}

/**
 * The size in bytes of the line `text` stands for when it is that placeholder, else null: readers
 * say "too long to read" with its real size rather than calling it a line that is not JSON.
 */
export function tooLongLineBytes(text: string): number | null {
  const m = /^\(a line of ([\d,]{1,20}) bytes in claude's transcript, too long to read\)$/.exec(text.trim());
  return m ? Number(m[1]!.replaceAll(",", "")) : null;
}

/** How a reader names such a line. */
export function tooLongNotice(bytes: number): string {
  return `a line of ${bytes.toLocaleString("en")} bytes in claude's transcript, too long to read: not shown`;
}

/** Up to `bytes` bytes of the file from `at` (fewer at its end). */
export async function readTranscriptRange(file: string, at: number, bytes: number): Promise<Buffer> {
  const handle = await openTranscript(file);
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, at);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
