/**
 * The conversation's stream read a piece at a time, never all at once: a turn whose tool input is
 * 50 MB sits in a piece that inflates to four times that, and a reader that only needs the lines'
 * starts (a page, a replay) or streams them out (a download) must not hold it whole.
 */
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
