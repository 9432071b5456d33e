/**
 * Writing the stream's pieces (the layout and why: conversation-pieces.ts): finishing the piece
 * being written, compressing it behind the recording, finishing what a crash left half done, a
 * fork's copy and an import's packing.
 */
import {
  closeSync,
  createReadStream,
  createWriteStream,
  fdatasyncSync,
  mkdirSync,
  openSync,
  renameSync,
  promises as fs,
} from "node:fs";
import { pipeline } from "node:stream/promises";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { faultPoint } from "../base/fault-injection.js";
import { replaceAtomically, syncDirSync } from "./atomic-write.js";
import {
  countLines,
  damaged,
  LIVE_NAME,
  missingIsEmpty,
  PIECE_NAME,
  PIECES_DIR,
  pieceName,
  readStream,
  streamLayout,
  type Piece,
  type StreamPoint,
} from "./conversation-pieces.js";

const gzip = promisify(zlib.gzip);

/**
 * zlib's fastest level: claude's stream comes out ~20% larger than at the default level (6), at
 * about three times the speed (~460 MB/s here: a turn that printed 250 MB is packed in ~0.6 s,
 * not ~1.6 s), and it runs beside claude on the same cores.
 */
const GZIP_LEVEL = 1;

/**
 * Finish the piece being written: `fd` is conversation.jsonl, holding the stream from `from` to
 * `to` (whole lines). Its bytes are synced, a new empty conversation.jsonl is made ready beside it,
 * it is renamed into conversation.d under its range and the new one takes its name. Returns the
 * new file's descriptor and the piece's path. Synchronous: the writer calls it between two
 * appends, so no byte can land in between. If a step fails, what was done is undone and the
 * error thrown: the writer goes on with the file it had.
 */
export function finishPieceSync(
  dir: string,
  fd: number,
  from: StreamPoint,
  to: StreamPoint,
): { fd: number; piece: string } {
  const live = path.join(dir, LIVE_NAME);
  const next = `${live}.next`;
  const folder = path.join(dir, PIECES_DIR);
  const piece = path.join(folder, pieceName(from, to, false));
  fdatasyncSync(fd);
  mkdirOnce(folder);
  const nextFd = openSync(next, "w+", 0o666);
  try {
    renameSync(live, piece);
    try {
      faultPoint("piece-finish");
      renameSync(next, live);
    } catch (error) {
      renameSync(piece, live);
      throw error;
    }
  } catch (error) {
    closeSync(nextFd);
    try {
      renameSync(next, `${next}.failed`);
    } catch {
      // left for the next open to clear
    }
    throw error;
  }
  syncDirSync(folder);
  syncDirSync(dir);
  return { fd: nextFd, piece };
}

function mkdirOnce(folder: string): void {
  try {
    mkdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}

/**
 * Replace a plain piece by its compressed copy (written aside, synced, renamed in), then remove
 * the plain one. Streamed: a turn that printed hundreds of MB makes a piece that large.
 */
export async function compressPiece(file: string): Promise<void> {
  await replaceAtomically(`${file}.gz`, async (temp) => {
    const out = await fs.open(temp, "wx");
    try {
      await pipeline(
        createReadStream(file),
        zlib.createGzip({ level: GZIP_LEVEL }),
        async (packed: AsyncIterable<Buffer>) => {
          for await (const chunk of packed)
            for (let done = 0; done < chunk.length;)
              done += (await out.write(chunk, done, chunk.length - done)).bytesWritten;
        },
      );
      await out.sync();
    } finally {
      await out.close();
    }
  });
  faultPoint("piece-compress");
  await fs.rm(file, { force: true });
}

/**
 * What a crash left half done in conversation.d: a plain piece whose .gz is already in place
 * (removed), a piece never compressed (returned, to be compressed), a new file made ready but
 * never renamed in.
 */
export async function tidyPieces(dir: string): Promise<string[]> {
  await fs.rm(path.join(dir, `${LIVE_NAME}.next`), { force: true });
  await fs.rm(path.join(dir, `${LIVE_NAME}.next.failed`), { force: true });
  const names = await fs.readdir(path.join(dir, PIECES_DIR)).catch(missingIsEmpty);
  const plain: string[] = [];
  for (const name of names) {
    if (!PIECE_NAME.test(name) || name.endsWith(".gz")) continue;
    const file = path.join(dir, PIECES_DIR, name);
    if (names.includes(`${name}.gz`)) await fs.rm(file, { force: true });
    else plain.push(file);
  }
  return plain;
}

/**
 * The stream up to `end` (a line's start) as the stream of a new bundle being built in `toDir`:
 * the finished pieces before it are hard-linked (they never change), the rest is one new
 * compressed piece. A rest not ending a line (a crash's torn line) stays plain in conversation.jsonl,
 * where the next recording ends it.
 */
export async function copyStreamPrefix(fromDir: string, toDir: string, end: number): Promise<void> {
  const layout = await streamLayout(fromDir);
  await fs.mkdir(path.join(toDir, PIECES_DIR), { recursive: true });
  let at: StreamPoint = { line: 0, byte: 0 };
  for (const p of layout.pieces) {
    if (p.to.byte > end) break;
    await requireWholePiece(fromDir, p);
    await linkPiece(p, path.join(toDir, PIECES_DIR));
    at = p.to;
  }
  const rest = end > at.byte ? await readStream(fromDir, at.byte, end) : Buffer.alloc(0);
  if (at.byte + rest.length < end)
    throw damaged(
      fromDir,
      `it ends at byte ${at.byte + rest.length}, and the fork's turns were recorded up to byte ${end}: a piece of conversation.d or the end of conversation.jsonl is missing`,
    );
  const live = path.join(toDir, LIVE_NAME);
  if (rest.length === 0 || rest[rest.length - 1] !== 0x0a) return fs.writeFile(live, rest, { flag: "wx" });
  await writePackedPiece(toDir, at, rest);
  await fs.writeFile(live, "", { flag: "wx" });
}

/**
 * A piece about to be linked into a fork, checked without inflating it: a plain one's length, a
 * compressed one's gzip trailer (ISIZE: the inflated length, mod 2^32), which a cut or garbage
 * file does not end with. The fork would otherwise carry the damage without a word.
 */
async function requireWholePiece(dir: string, p: Piece): Promise<void> {
  const expected = p.to.byte - p.from.byte;
  const name = path.basename(p.file);
  const handle = await fs.open(p.file, "r").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" && !p.compressed) return null; // compressed meanwhile: linkPiece takes the .gz
    throw error;
  });
  if (!handle) return;
  try {
    const size = (await handle.stat()).size;
    if (!p.compressed) {
      if (size !== expected) throw damaged(dir, `${name} holds ${size} bytes, and its name says ${expected}`);
      return;
    }
    const trailer = Buffer.alloc(4);
    if (
      size < 18 ||
      (await handle.read(trailer, 0, 4, size - 4)).bytesRead !== 4 ||
      trailer.readUInt32LE(0) !== expected % 2 ** 32
    ) {
      throw damaged(dir, `${name} does not end as a gzip file of ${expected} bytes does (cut short or overwritten)`);
    }
  } finally {
    await handle.close();
  }
}

/** Link a piece into another bundle's folder (copied where links are refused); its plain file compressed meanwhile: the .gz. */
async function linkPiece(p: Piece, folder: string): Promise<void> {
  const candidates = p.compressed ? [p.file] : [p.file, `${p.file}.gz`];
  for (const [i, file] of candidates.entries()) {
    const to = path.join(folder, path.basename(file));
    try {
      await fs.link(file, to).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") throw error;
        await fs.copyFile(file, to, fs.constants.COPYFILE_EXCL);
      });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || i === candidates.length - 1) throw error;
    }
  }
}

/**
 * Whole lines that start at `at` in the stream, as one compressed piece of a bundle nobody reads
 * yet (a fork or an import being built); where the stream goes on after them.
 */
async function writePackedPiece(dir: string, at: StreamPoint, whole: Buffer): Promise<StreamPoint> {
  const to = { line: at.line + countLines(whole), byte: at.byte + whole.length };
  await fs.mkdir(path.join(dir, PIECES_DIR), { recursive: true });
  await fs.writeFile(path.join(dir, PIECES_DIR, pieceName(at, to, true)), await gzip(whole, { level: GZIP_LEVEL }), {
    flag: "wx",
  });
  return to;
}

/** A piece packed from a whole stream (an import) holds about this much: reading one turn inflates its piece. */
const PACKED_PIECE_BYTES = 4 << 20;

/**
 * A bundle being built apart (an import's staging, nobody else reads it): its conversation.jsonl
 * packed into compressed pieces of whole lines, about PACKED_PIECE_BYTES each (up to a read block
 * more). A last line without its "\n" stays in conversation.jsonl.
 *
 * The file is scanned for line ends a block at a time and each piece compressed from the file as
 * a stream: a line of a 50 MB tool input is never held (gathered, it was copied again each block).
 */
export async function packLive(dir: string): Promise<void> {
  const layout = await streamLayout(dir);
  const handle = await fs.open(layout.live.file, "r").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (!handle) return;
  let at = layout.live.from;
  // File offsets: where the piece being gathered starts, just past the last "\n" read, how far read.
  let start = 0;
  let lineEnd = 0;
  let read = 0;
  let lines = 0;
  let linesToEnd = 0;
  const write = async (end: number) => {
    at = await writePackedRange(dir, at, layout.live.file, start, end, linesToEnd);
    start = end;
    lines -= linesToEnd;
    linesToEnd = 0;
  };
  try {
    const block = Buffer.alloc(1 << 20);
    // Read a block at a time: an imported stream may be hundreds of MB.
    for (let n = (await handle.read(block, 0, block.length, 0)).bytesRead; n > 0;) {
      for (let i = block.indexOf(0x0a); i !== -1 && i < n; i = block.indexOf(0x0a, i + 1)) {
        lines++;
        lineEnd = read + i + 1;
        linesToEnd = lines;
      }
      read += n;
      // One line longer than a piece goes whole into the next.
      if (read - start >= PACKED_PIECE_BYTES && lineEnd > start) await write(lineEnd);
      n = (await handle.read(block, 0, block.length, read)).bytesRead;
    }
    if (lineEnd > start) await write(lineEnd);
  } finally {
    await handle.close();
  }
  if (at.byte === layout.live.from.byte) return;
  // What follows the last "\n": a line claude was still writing, small.
  const rest = Buffer.alloc(read - start);
  const tail = await fs.open(layout.live.file, "r");
  try {
    if (rest.length > 0) await tail.read(rest, 0, rest.length, start);
  } finally {
    await tail.close();
  }
  await fs.writeFile(layout.live.file, rest);
}

/** The file's bytes [start, end) (`lines` whole lines) as one compressed piece, streamed; where the stream goes on after them. */
async function writePackedRange(
  dir: string,
  at: StreamPoint,
  file: string,
  start: number,
  end: number,
  lines: number,
): Promise<StreamPoint> {
  const to = { line: at.line + lines, byte: at.byte + (end - start) };
  await fs.mkdir(path.join(dir, PIECES_DIR), { recursive: true });
  await pipeline(
    createReadStream(file, { start, end: end - 1, highWaterMark: 1 << 20 }),
    zlib.createGzip({ level: GZIP_LEVEL }),
    createWriteStream(path.join(dir, PIECES_DIR, pieceName(at, to, true)), { flags: "wx" }),
  );
  return to;
}
