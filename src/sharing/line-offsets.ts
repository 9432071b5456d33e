/**
 * Byte offsets in NDJSON files that an export changes line by line (masking a secret, moving a
 * path): the manifest records positions in bytes (a turn's range in conversation.jsonl, the
 * transcript's length after each turn), and each must still fall on the same line boundary in
 * the changed copy. Every change keeps the lines, so a position is carried over by its line number.
 *
 * Files are read in blocks, never whole.
 */
import { createReadStream, createWriteStream, promises as fs } from "node:fs";
import { pipeline } from "node:stream/promises";

const BLOCK = 1 << 20;

/** Where each (0-based) line starts; a line past the end maps to the file's length. One pass. */
export async function lineStarts(file: string, lines: number[]): Promise<Map<number, number>> {
  const wanted = [...new Set(lines)].sort((a, b) => a - b);
  const found = new Map<number, number>();
  let next = 0;
  while (next < wanted.length && wanted[next] === 0) found.set(wanted[next++]!, 0);
  let seen = 0;
  let offset = 0;
  await eachBlock(file, (block) => {
    for (let i = block.indexOf(0x0a); i !== -1 && next < wanted.length; i = block.indexOf(0x0a, i + 1)) {
      seen++;
      while (next < wanted.length && wanted[next] === seen) found.set(wanted[next++]!, offset + i + 1);
    }
    offset += block.length;
    return next < wanted.length;
  });
  for (; next < wanted.length; next++) found.set(wanted[next]!, offset);
  return found;
}

/** How many whole lines ("\n"-terminated) end at or before each offset. One pass. */
export async function linesBefore(file: string, offsets: number[]): Promise<Map<number, number>> {
  const wanted = [...new Set(offsets)].sort((a, b) => a - b);
  const found = new Map<number, number>();
  let next = 0;
  let seen = 0;
  let offset = 0;
  await eachBlock(file, (block) => {
    for (let i = block.indexOf(0x0a); i !== -1; i = block.indexOf(0x0a, i + 1)) {
      while (next < wanted.length && wanted[next]! < offset + i + 1) found.set(wanted[next++]!, seen);
      seen++;
    }
    offset += block.length;
    return next < wanted.length;
  });
  for (; next < wanted.length; next++) found.set(wanted[next]!, seen);
  return found;
}

/**
 * Offsets of `original` carried to `changed` (the same lines, some rewritten). An offset inside
 * a line goes back to that line's start: a copy cut there never holds half a changed line.
 */
export async function remapOffsets(original: string, changed: string, offsets: number[]): Promise<Map<number, number>> {
  const lines = await linesBefore(original, offsets);
  const starts = await lineStarts(changed, [...lines.values()]);
  return new Map(offsets.map((o) => [o, starts.get(lines.get(o)!)!]));
}

/** The first `bytes` bytes of `from` as a new file `to` (which must not exist). Streams. */
export async function copyPrefix(from: string, to: string, bytes: number): Promise<void> {
  if (bytes <= 0) return fs.writeFile(to, "", { flag: "wx" });
  await pipeline(createReadStream(from, { start: 0, end: bytes - 1 }), createWriteStream(to, { flags: "wx" }));
}

/** Which of `names` the file holds somewhere (read a block at a time, a name across two blocks found too). */
export async function namesIn(file: string, names: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const wanted = [...new Set(names)].filter((n) => n !== "").map((n) => [n, Buffer.from(n)] as const);
  const overlap = Math.max(0, ...wanted.map(([, b]) => b.length - 1));
  let tail = Buffer.alloc(0);
  await eachBlock(file, (block) => {
    const text = tail.length ? Buffer.concat([tail, block]) : block;
    for (const [name, bytes] of wanted) if (!found.has(name) && text.includes(bytes)) found.add(name);
    tail = Buffer.from(text.subarray(Math.max(0, text.length - overlap)));
    return found.size < wanted.length;
  });
  return found;
}

/** Call `use` with each block of the file until it returns false. A missing file has no blocks. */
async function eachBlock(file: string, use: (block: Buffer) => boolean): Promise<void> {
  const stream = createReadStream(file, { highWaterMark: BLOCK });
  try {
    for await (const chunk of stream) if (!use(chunk as Buffer)) break;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  } finally {
    stream.destroy();
  }
}
