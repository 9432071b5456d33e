/**
 * The conversation's stream read a piece at a time, never all at once: a turn whose tool input is
 * 50 MB sits in a piece that inflates to four times that, and a reader that only needs the lines'
 * starts (a page, a replay), streams them out (a download) or copies them (an export, a fork)
 * must not hold it whole.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { openBundleFile } from "./bundle-links.js";
import { damaged, pieceBytes, streamLayout, type Piece, type StreamLayout } from "./conversation-pieces.js";

/** What one read hands on at most. */
const RANGE_CHUNK = 1 << 20;
/** A compressed piece up to this size inflated is read whole (and kept for the next turn); larger ones are inflated as a stream. */
const WHOLE_PIECE_BYTES = 32 << 20;

/** The stream's bytes [from, to) in chunks of at most RANGE_CHUNK (`to` null: to its end now). */
export async function* streamRange(dir: string, from: number, to: number | null = null): AsyncGenerator<Buffer> {
  let at = from;
  for (let attempt = 0; ; attempt++) {
    const layout = await streamLayout(dir);
    try {
      for await (const chunk of fromLayout(layout, at, to)) {
        at += chunk.length;
        yield chunk;
      }
      return;
    } catch (error) {
      // The recorder finished the piece being written (renamed it) between the listing and the open: list again.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt >= 8) throw error;
    }
  }
}

/** Where line `n` (0-based) starts in the stream; its length when it has fewer lines. */
export async function streamOffsetOfLine(dir: string, n: number): Promise<number> {
  if (n === 0) return 0;
  let seen = 0;
  let offset = 0;
  for await (const chunk of streamRange(dir, 0)) {
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) if (++seen === n) return offset + i + 1;
    offset += chunk.length;
  }
  return offset;
}

/**
 * The stream's first `lines` lines written to `file` (plain, as claude wrote them), a piece at a
 * time. A stream holding fewer is damaged (the turns were recorded in those lines): refused.
 */
export async function writeStreamLines(dir: string, file: string, lines: number): Promise<void> {
  const out = await fs.open(file, "wx");
  try {
    let seen = 0;
    if (lines > 0) {
      for await (const chunk of streamRange(dir, 0)) {
        let end = chunk.length;
        for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) {
          if (++seen === lines) {
            end = i + 1;
            break;
          }
        }
        for (let done = 0; done < end;) done += (await out.write(chunk, done, end - done)).bytesWritten;
        if (seen === lines) break;
      }
    }
    if (seen < lines)
      throw damaged(
        dir,
        `it holds ${seen} whole lines, and the turns were recorded up to line ${lines}: a piece of conversation.d or the end of conversation.jsonl is missing`,
      );
  } finally {
    await out.close();
  }
}

async function* fromLayout(layout: StreamLayout, from: number, to: number | null): AsyncGenerator<Buffer> {
  for (const p of layout.pieces) {
    if (p.to.byte <= from || (to !== null && p.from.byte >= to)) continue;
    const start = from - p.from.byte;
    const end = Math.min(p.to.byte, to ?? Infinity) - p.from.byte;
    if (!p.compressed) yield* fileRange(p.file, Math.max(0, start), end);
    else if (p.to.byte - p.from.byte <= WHOLE_PIECE_BYTES)
      yield* slices((await pieceBytes(p)).subarray(Math.max(0, start), end));
    else yield* inflatedRange(p, Math.max(0, start), end);
  }
  const base = layout.live.from.byte;
  const start = Math.max(from, base) - base;
  if (to === null || to > base + start) yield* fileRange(layout.live.file, start, to === null ? null : to - base);
}

function* slices(bytes: Buffer): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += RANGE_CHUNK) yield bytes.subarray(at, at + RANGE_CHUNK);
}

/** A file's bytes [from, to) (null: to its end now); a missing live file is an empty stream. */
async function* fileRange(file: string, from: number, to: number | null): AsyncGenerator<Buffer> {
  const live = to === null;
  const handle = await openBundleFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" && live) return null;
    throw error;
  });
  if (!handle) return;
  try {
    const end = to ?? (await handle.stat()).size;
    for (let at = from; at < end;) {
      const buffer = Buffer.allocUnsafe(Math.min(RANGE_CHUNK, end - at));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
      if (bytesRead === 0) return;
      at += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** A large compressed piece inflated as a stream: the bytes before `from` are inflated and dropped. */
async function* inflatedRange(p: Piece, from: number, to: number): AsyncGenerator<Buffer> {
  const handle = await openBundleFile(p.file);
  const gunzip = zlib.createGunzip({ chunkSize: 256 << 10 });
  const input = handle.createReadStream({ highWaterMark: 256 << 10 });
  input.pipe(gunzip);
  input.on("error", (error) => gunzip.destroy(error));
  const expected = p.to.byte - p.from.byte;
  let at = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      const next = at + chunk.length;
      if (next > expected)
        throw damaged(
          path.dirname(path.dirname(p.file)),
          `${path.basename(p.file)} inflates to more than the ${expected} bytes its name says`,
        );
      if (next > from) yield chunk.subarray(Math.max(0, from - at), Math.min(chunk.length, to - at));
      at = next;
      if (at >= to) return;
    }
    if (at < to)
      throw damaged(
        path.dirname(path.dirname(p.file)),
        `${path.basename(p.file)} holds ${at} bytes, and its name says ${expected}`,
      );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === "string" && code.startsWith("Z_"))
      throw damaged(
        path.dirname(path.dirname(p.file)),
        `${path.basename(p.file)} cannot be inflated (${(error as Error).message})`,
      );
    throw error;
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}
