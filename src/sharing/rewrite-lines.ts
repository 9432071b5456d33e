/**
 * A file copied line by line through a change, streamed (transcripts may be hundreds of MB): the
 * lines it changes are replaced, every other byte — line ends, a last line without "\n" — stays.
 */
import { createWriteStream, promises as fs } from "node:fs";
import { once } from "node:events";
import { BoundedLineFramer, type LongLine } from "../claude/ndjson.js";
import { FileLine } from "../claude/long-line.js";

const NEWLINE = Buffer.from("\n");
/** A line longer than this is not assembled unless it holds one of the change's marks. */
const LONG_LINE = 4 << 20;

export interface LineChange {
  /** A long line without any of these bytes is kept as it is, copied through a window at a time, unread. */
  marks: Buffer[];
  /** A line's new bytes, or null to keep it (called for every line but a long one without a mark). */
  change: (line: Buffer) => Buffer | null;
  /** A long line with a mark changed without reading it whole: its new bytes as pieces, or null to keep it. */
  changeLong?: (line: FileLine) => Iterable<Buffer> | null;
  /** The length from which a line is long (tests make it small). */
  longLine?: number;
}

/** Copy `src` to `dest` (which must not exist) through `change`. */
export async function rewriteLines(
  src: string,
  dest: string,
  { marks, change, changeLong, longLine = LONG_LINE }: LineChange,
): Promise<{ lines: number; changed: number }> {
  const handle = await fs.open(src, "r");
  // Lines are written one by one: a large buffer lets them gather into few writes (16 KB, the
  // default, waited for the disk every ten lines of a transcript).
  const out = createWriteStream(dest, { flags: "wx", highWaterMark: 1 << 20 });
  const closed = once(out, "close");
  const framer = new BoundedLineFramer(longLine);
  let lines = 0;
  let changed = 0;
  const put = async (bytes: Buffer) => {
    if (!out.write(bytes)) await once(out, "drain");
  };
  // A long line's piece is its buffer, read over for the next piece: written out before that.
  const putNow = (bytes: Buffer) =>
    new Promise<void>((resolve, reject) => out.write(bytes, (error) => (error ? reject(error) : resolve())));
  const write = async (found: Buffer | LongLine, newline: boolean) => {
    lines++;
    const line = Buffer.isBuffer(found) ? found : new FileLine(handle.fd, found);
    const marked = !(line instanceof FileLine) || marks.some((m) => line.includes(m));
    if (line instanceof FileLine && (!marked || changeLong)) {
      // Changed (or copied) a window at a time: never held whole.
      const pieces = marked ? changeLong!(line) : null;
      if (pieces) changed++;
      for (const piece of pieces ?? line.pieces(0, line.length)) await putNow(piece);
    } else {
      // A long line that holds a mark, without changeLong, is rare (a queued prompt of many MB): it is read whole.
      const bytes = line instanceof FileLine ? line.whole() : line;
      const replaced = change(bytes);
      if (replaced) changed++;
      // Written apart, not joined: a line of a 50 MB tool input would be copied whole once more.
      await put(replaced ?? bytes);
    }
    if (newline) await put(NEWLINE);
  };
  try {
    for await (const chunk of handle.createReadStream({ highWaterMark: 1 << 20, autoClose: false, start: 0 })) {
      const complete: Array<Buffer | LongLine> = [];
      framer.push(chunk as Buffer, (line) => complete.push(line));
      for (const line of complete) await write(line, true);
    }
    const last: Array<Buffer | LongLine> = [];
    framer.end((line) => last.push(line));
    for (const line of last) await write(line, false);
  } finally {
    await handle.close();
    out.end();
    await closed;
  }
  return { lines, changed };
}
