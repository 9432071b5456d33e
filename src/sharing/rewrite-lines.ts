/**
 * A file copied line by line through a change, streamed (transcripts may be hundreds of MB): the
 * lines it changes are replaced, every other byte — line ends, a last line without "\n" — stays.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { once } from "node:events";
import { LineFramer } from "../claude/ndjson.js";

const NEWLINE = Buffer.from("\n");

/** Copy `src` to `dest` (which must not exist); `change` returns a line's new bytes, or null to keep it. */
export async function rewriteLines(
  src: string,
  dest: string,
  change: (line: Buffer) => Buffer | null,
): Promise<{ lines: number; changed: number }> {
  const out = createWriteStream(dest, { flags: "wx" });
  const closed = once(out, "close");
  const framer = new LineFramer();
  let lines = 0;
  let changed = 0;
  const write = async (line: Buffer, newline: boolean) => {
    lines++;
    const replaced = change(line);
    if (replaced) changed++;
    // Written apart, not joined: a line of a 50 MB tool input would be copied whole once more.
    const full = !out.write(replaced ?? line);
    if ((newline && !out.write(NEWLINE)) || full) await once(out, "drain");
  };
  try {
    for await (const chunk of createReadStream(src, { highWaterMark: 1 << 20 })) {
      const complete: Buffer[] = [];
      framer.push(chunk as Buffer, (line) => complete.push(line));
      for (const line of complete) await write(line, true);
    }
    const last: Buffer[] = [];
    framer.end((line) => last.push(line));
    for (const line of last) await write(line, false);
  } finally {
    out.end();
    await closed;
  }
  return { lines, changed };
}
