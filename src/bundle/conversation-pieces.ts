/**
 * The conversation's stream (claude's stdout, byte for byte) kept in pieces, the finished ones
 * compressed. Every position a bundle records (a turn's line and byte range) is a position in the
 * whole stream, as it always was; only where the bytes lie changed:
 *
 *   conversation.d/<fromLine>-<toLine>.<fromByte>-<toByte>.jsonl.gz   a finished piece (gzip: `zcat` reads it;
 *                                     the numbers padded to 12 digits, so the names sort in stream order)
 *   conversation.d/<same>.jsonl       a finished piece not compressed yet
 *   conversation.jsonl                the piece being written: the stream from where the last piece ends
 *
 * A piece is made by renaming the file being written into conversation.d under its range (its
 * bytes synced first), so it is whole under its name and never changes; compressing writes the
 * .gz aside, syncs it, renames it into place and only then removes the plain one. At every
 * instant each piece can be read from one of its two files. A bundle written before pieces has
 * conversation.jsonl alone: the same layout with none finished.
 *
 * Why (issue 24): the stream is mostly partial-message events, repeated init lines and hook
 * traffic, which compress ~5× even at zlib's fastest level; claude's own transcript holds the
 * conversation once, so the stream plain cost 1.2–1.9× of it again.
 */
import { closeSync, createReadStream, fdatasyncSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, promises as fs } from "node:fs";
import { pipeline } from "node:stream/promises";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { UserError } from "../errors.js";
import { replaceAtomically } from "./atomic-write.js";
import { faultPoint } from "../fault-injection.js";

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

export const PIECES_DIR = "conversation.d";
export const LIVE_NAME = "conversation.jsonl";
/**
 * zlib's fastest level: claude's stream comes out ~20% larger than at the default level (6), at
 * about three times the speed (~460 MB/s here: a turn that printed 250 MB is packed in ~0.6 s,
 * not ~1.6 s), and it runs beside claude on the same cores.
 */
const GZIP_LEVEL = 1;
const PIECE_NAME = /^(\d+)-(\d+)\.(\d+)-(\d+)\.jsonl(\.gz)?$/;

/** A place in the stream: a line number and the byte it starts at. */
export interface StreamPoint {
  line: number;
  byte: number;
}

export interface Piece {
  from: StreamPoint;
  to: StreamPoint;
  file: string;
  compressed: boolean;
}

export interface StreamLayout {
  pieces: Piece[];
  /** conversation.jsonl, which holds the stream from `from` on. */
  live: { file: string; from: StreamPoint };
}

/** Numbers padded to 12 digits, so the names sort in stream order: `zcat conversation.d/*.gz` is the stream's start. */
export function pieceName(from: StreamPoint, to: StreamPoint, compressed: boolean): string {
  const n = (v: number) => String(v).padStart(12, "0");
  return `${n(from.line)}-${n(to.line)}.${n(from.byte)}-${n(to.byte)}.jsonl${compressed ? ".gz" : ""}`;
}

/** The pieces of a bundle's stream from the folder's names (one listing). */
export function layoutOf(dir: string, names: string[]): StreamLayout {
  const byRange = new Map<string, Piece>();
  for (const name of names) {
    const m = PIECE_NAME.exec(name);
    if (!m) continue;
    const key = name.replace(/\.gz$/, "");
    const piece: Piece = { from: { line: +m[1]!, byte: +m[3]! }, to: { line: +m[2]!, byte: +m[4]! }, file: path.join(dir, PIECES_DIR, name), compressed: m[5] !== undefined };
    // Both there (compressed, its plain twin not yet removed): the .gz is whole, it was renamed into place.
    if (!byRange.get(key)?.compressed) byRange.set(key, piece);
  }
  const pieces = [...byRange.values()].sort((a, b) => a.from.byte - b.from.byte || a.from.line - b.from.line);
  let at: StreamPoint = { line: 0, byte: 0 };
  for (const p of pieces) {
    if (p.from.byte !== at.byte || p.from.line !== at.line || p.to.byte < p.from.byte || p.to.line < p.from.line) {
      throw damaged(dir, `${path.basename(p.file)} does not start where the piece before it ends (line ${at.line}, byte ${at.byte})`);
    }
    at = p.to;
  }
  return { pieces, live: { file: path.join(dir, LIVE_NAME), from: at } };
}

export async function streamLayout(dir: string): Promise<StreamLayout> {
  return layoutOf(dir, await fs.readdir(path.join(dir, PIECES_DIR)).catch(missingIsEmpty));
}

export function streamLayoutSync(dir: string): StreamLayout {
  let names: string[];
  try {
    names = readdirSync(path.join(dir, PIECES_DIR));
  } catch (error) {
    names = missingIsEmpty(error as Error);
  }
  return layoutOf(dir, names);
}

/** The stream's length so far (finished pieces and the piece being written). */
export async function streamSize(dir: string): Promise<number> {
  return retryOnRotation(dir, async (layout) => layout.live.from.byte + ((await fs.stat(layout.live.file).catch(() => null))?.size ?? 0));
}

/** The stream's bytes [from, to), `to` cut at its end (null: to its end). */
export async function readStream(dir: string, from: number, to: number | null = null): Promise<Buffer> {
  return retryOnRotation(dir, (layout) => readFromLayout(layout, from, to));
}

/** The whole stream, or its first `to` bytes, a piece at a time (never all in memory). */
export async function* streamChunks(dir: string, to: number | null = null): AsyncGenerator<Buffer> {
  const CHUNK = 4 << 20;
  for (let at = 0; to === null || at < to; ) {
    const chunk = await readStream(dir, at, to === null ? at + CHUNK : Math.min(to, at + CHUNK));
    if (chunk.length === 0) return;
    yield chunk;
    at += chunk.length;
  }
}

/**
 * Read with a layout, then list again: the recorder may have finished the piece being written
 * meanwhile (renamed it and begun a new one), which this read would have seen half of. A piece
 * compressed meanwhile reads the same either way; a plain file removed before it was opened is
 * read again from a new listing.
 */
async function retryOnRotation<T>(dir: string, read: (layout: StreamLayout) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const layout = await streamLayout(dir);
    try {
      const value = await read(layout);
      const again = await streamLayout(dir);
      if (again.live.from.byte === layout.live.from.byte || attempt >= 8) return value;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt >= 8) throw error;
    }
  }
}

async function readFromLayout(layout: StreamLayout, from: number, to: number | null): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const p of layout.pieces) {
    if (p.to.byte <= from || (to !== null && p.from.byte >= to)) continue;
    const bytes = await pieceBytes(p);
    parts.push(bytes.subarray(Math.max(0, from - p.from.byte), to === null ? undefined : Math.max(0, to - p.from.byte)));
  }
  const start = Math.max(from, layout.live.from.byte);
  if (to === null || to > start) parts.push(await readLive(layout.live.file, start - layout.live.from.byte, to === null ? null : to - layout.live.from.byte));
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** The last piece inflated, kept: one turn after another read from the same piece inflates it once. */
let inflated: { key: string; bytes: Buffer } | null = null;

async function pieceBytes(p: Piece): Promise<Buffer> {
  const expected = p.to.byte - p.from.byte;
  const dir = path.dirname(path.dirname(p.file));
  const name = path.basename(p.file);
  if (!p.compressed) return checkedPiece(dir, name, p, await fs.readFile(p.file));
  const stat = await fs.stat(p.file);
  const key = `${p.file}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  if (inflated?.key === key) return inflated.bytes;
  let bytes: Buffer;
  try {
    // Never more than the name says (and one byte to tell): a piece that inflates to gigabytes is damage, found at once.
    bytes = await gunzip(await fs.readFile(p.file), { maxOutputLength: expected + 1 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw error;
    if (code === "ERR_BUFFER_TOO_LARGE") throw damaged(dir, `${name} inflates to more than the ${expected} bytes its name says`);
    throw damaged(dir, `${name} cannot be inflated (${(error as Error).message})`);
  }
  inflated = { key, bytes: checkedPiece(dir, name, p, bytes) };
  return bytes;
}

/** A piece's bytes hold as many bytes and lines as its name says, or it is damaged (a turn would read another's lines). */
function checkedPiece(dir: string, name: string, p: Piece, bytes: Buffer): Buffer {
  if (bytes.length !== p.to.byte - p.from.byte) throw damaged(dir, `${name} holds ${bytes.length} bytes, and its name says ${p.to.byte - p.from.byte}`);
  let lines = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) lines++;
  if (lines !== p.to.line - p.from.line) throw damaged(dir, `${name} holds ${lines} lines, and its name says ${p.to.line - p.from.line}`);
  return bytes;
}

async function readLive(file: string, from: number, to: number | null): Promise<Buffer> {
  const handle = await fs.open(file, "r").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (!handle) return Buffer.alloc(0);
  try {
    const end = to ?? (await handle.stat()).size;
    if (end <= from) return Buffer.alloc(0);
    const buffer = Buffer.alloc(end - from);
    let done = 0;
    while (done < buffer.length) {
      const { bytesRead } = await handle.read(buffer, done, buffer.length - done, from + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return buffer.subarray(0, done);
  } finally {
    await handle.close();
  }
}

/**
 * Finish the piece being written: `fd` is conversation.jsonl, holding the stream from `from` to
 * `to` (whole lines). Its bytes are synced, a new empty conversation.jsonl is made ready beside it,
 * it is renamed into conversation.d under its range and the new one takes its name. Returns the
 * new file's descriptor and the piece's path. Synchronous: the writer calls it between two
 * appends, so no byte can land in between. If a step fails, what was done is undone and the
 * error thrown: the writer goes on with the file it had.
 */
export function finishPieceSync(dir: string, fd: number, from: StreamPoint, to: StreamPoint): { fd: number; piece: string } {
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
      await pipeline(createReadStream(file), zlib.createGzip({ level: GZIP_LEVEL }), async (packed: AsyncIterable<Buffer>) => {
        for await (const chunk of packed) for (let done = 0; done < chunk.length; ) done += (await out.write(chunk, done, chunk.length - done)).bytesWritten;
      });
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

function syncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function missingIsEmpty(error: Error): string[] {
  if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return [];
  throw error;
}

export function damaged(dir: string, what: string): UserError {
  return new UserError(`the conversation of the session in ${dir} is damaged: ${what}`, `restore the session's folder from a backup, or remove the session with: nudge session rm ${path.basename(dir)}`);
}

/** Where line `n` (0-based) starts in the stream; its length when it has fewer lines. */
export async function streamOffsetOfLine(dir: string, n: number): Promise<number> {
  if (n === 0) return 0;
  let seen = 0;
  let offset = 0;
  for await (const chunk of streamChunks(dir)) {
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
      for await (const chunk of streamChunks(dir)) {
        let end = chunk.length;
        for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) {
          if (++seen === lines) {
            end = i + 1;
            break;
          }
        }
        for (let done = 0; done < end; ) done += (await out.write(chunk, done, end - done)).bytesWritten;
        if (seen === lines) break;
      }
    }
    if (seen < lines) throw damaged(dir, `it holds ${seen} whole lines, and the turns were recorded up to line ${lines}: a piece of conversation.d or the end of conversation.jsonl is missing`);
  } finally {
    await out.close();
  }
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
  if (at.byte + rest.length < end) throw damaged(fromDir, `it ends at byte ${at.byte + rest.length}, and the fork's turns were recorded up to byte ${end}: a piece of conversation.d or the end of conversation.jsonl is missing`);
  const live = path.join(toDir, LIVE_NAME);
  if (rest.length === 0 || rest[rest.length - 1] !== 0x0a) return fs.writeFile(live, rest, { flag: "wx" });
  let lines = 0;
  for (let i = rest.indexOf(0x0a); i !== -1; i = rest.indexOf(0x0a, i + 1)) lines++;
  await fs.writeFile(path.join(toDir, PIECES_DIR, pieceName(at, { line: at.line + lines, byte: at.byte + rest.length }, true)), await gzip(rest, { level: GZIP_LEVEL }), { flag: "wx" });
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
    if (size < 18 || (await handle.read(trailer, 0, 4, size - 4)).bytesRead !== 4 || trailer.readUInt32LE(0) !== expected % 2 ** 32) {
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

/** Does the bundle hold any of claude's stream? (One it cannot read counts: something is there.) */
export async function holdsStream(dir: string): Promise<boolean> {
  return streamSize(dir).then(
    (size) => size > 0,
    () => true,
  );
}

/** A piece packed from a whole stream (an import) holds about this much: reading one turn inflates its piece. */
const PACKED_PIECE_BYTES = 4 << 20;

/**
 * A bundle being built apart (an import's staging, nobody else reads it): its conversation.jsonl
 * packed into compressed pieces of whole lines, about PACKED_PIECE_BYTES each (up to a read block
 * more). A last line without its "\n" stays in conversation.jsonl.
 */
export async function packLive(dir: string): Promise<void> {
  const layout = await streamLayout(dir);
  const handle = await fs.open(layout.live.file, "r").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (!handle) return;
  let at = layout.live.from;
  let pending = Buffer.alloc(0);
  try {
    const block = Buffer.alloc(1 << 20);
    let made = false;
    const write = async (whole: Buffer) => {
      if (!made) await fs.mkdir(path.join(dir, PIECES_DIR), { recursive: true });
      made = true;
      let lines = 0;
      for (let i = whole.indexOf(0x0a); i !== -1; i = whole.indexOf(0x0a, i + 1)) lines++;
      const to = { line: at.line + lines, byte: at.byte + whole.length };
      await fs.writeFile(path.join(dir, PIECES_DIR, pieceName(at, to, true)), await gzip(whole, { level: GZIP_LEVEL }), { flag: "wx" });
      at = to;
    };
    // Read a block at a time: an imported stream may be hundreds of MB.
    for (let read = (await handle.read(block, 0, block.length, null)).bytesRead; read > 0; read = (await handle.read(block, 0, block.length, null)).bytesRead) {
      pending = Buffer.concat([pending, block.subarray(0, read)]);
      if (pending.length < PACKED_PIECE_BYTES) continue;
      const cut = pending.lastIndexOf(0x0a) + 1;
      if (cut === 0) continue; // one line longer than a piece: it goes whole into the next
      await write(pending.subarray(0, cut));
      pending = Buffer.from(pending.subarray(cut));
    }
    const cut = pending.lastIndexOf(0x0a) + 1;
    if (cut > 0) await write(pending.subarray(0, cut));
    pending = Buffer.from(pending.subarray(cut));
  } finally {
    await handle.close();
  }
  if (at.byte === layout.live.from.byte) return;
  await fs.writeFile(layout.live.file, pending);
}
