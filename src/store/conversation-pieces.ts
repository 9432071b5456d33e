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
import { readdirSync, promises as fs } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { UserError } from "../base/errors.js";
import { checkFolder, openBundleFile, readBundleFile } from "./bundle-links.js";

const gunzip = promisify(zlib.gunzip);

export const PIECES_DIR = "conversation.d";
export const LIVE_NAME = "conversation.jsonl";
export const PIECE_NAME = /^(\d+)-(\d+)\.(\d+)-(\d+)\.jsonl(\.gz)?$/;

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
function layoutOf(dir: string, names: string[]): StreamLayout {
  const byRange = new Map<string, Piece>();
  for (const name of names) {
    const m = PIECE_NAME.exec(name);
    if (!m) continue;
    const key = name.replace(/\.gz$/, "");
    const piece: Piece = {
      from: { line: +m[1]!, byte: +m[3]! },
      to: { line: +m[2]!, byte: +m[4]! },
      file: path.join(dir, PIECES_DIR, name),
      compressed: m[5] !== undefined,
    };
    // Both there (compressed, its plain twin not yet removed): the .gz is whole, it was renamed into place.
    if (!byRange.get(key)?.compressed) byRange.set(key, piece);
  }
  const pieces = [...byRange.values()].sort((a, b) => a.from.byte - b.from.byte || a.from.line - b.from.line);
  let at: StreamPoint = { line: 0, byte: 0 };
  for (const p of pieces) {
    if (p.from.byte !== at.byte || p.from.line !== at.line || p.to.byte < p.from.byte || p.to.line < p.from.line) {
      throw damaged(
        dir,
        `${path.basename(p.file)} does not start where the piece before it ends (line ${at.line}, byte ${at.byte})`,
      );
    }
    at = p.to;
  }
  return { pieces, live: { file: path.join(dir, LIVE_NAME), from: at } };
}

export async function streamLayout(dir: string): Promise<StreamLayout> {
  checkFolder(path.join(dir, PIECES_DIR));
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
  return retryOnRotation(
    dir,
    async (layout) => layout.live.from.byte + ((await fs.stat(layout.live.file).catch(() => null))?.size ?? 0),
  );
}

/** The stream's bytes [from, to), `to` cut at its end (null: to its end). */
export async function readStream(dir: string, from: number, to: number | null = null): Promise<Buffer> {
  return retryOnRotation(dir, (layout) => readFromLayout(layout, from, to));
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
    parts.push(
      bytes.subarray(Math.max(0, from - p.from.byte), to === null ? undefined : Math.max(0, to - p.from.byte)),
    );
  }
  const start = Math.max(from, layout.live.from.byte);
  if (to === null || to > start)
    parts.push(
      await readLive(layout.live.file, start - layout.live.from.byte, to === null ? null : to - layout.live.from.byte),
    );
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** The last piece inflated, kept: one turn after another read from the same piece inflates it once. */
let inflated: { key: string; bytes: Buffer } | null = null;
/** A piece larger than this inflated is never kept (a 50 MB tool input would stay in a server's memory). */
const KEPT_INFLATED_BYTES = 32 << 20;

export async function pieceBytes(p: Piece): Promise<Buffer> {
  const expected = p.to.byte - p.from.byte;
  const dir = path.dirname(path.dirname(p.file));
  const name = path.basename(p.file);
  if (!p.compressed) return checkedPiece(dir, name, p, await readBundleFile(p.file));
  const stat = await fs.stat(p.file);
  const key = `${p.file}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  if (inflated?.key === key) return inflated.bytes;
  let bytes: Buffer;
  try {
    // Never more than the name says (and one byte to tell): a piece that inflates to gigabytes is damage, found at once.
    bytes = await gunzip(await readBundleFile(p.file), { maxOutputLength: expected + 1 });
  } catch (error) {
    if (error instanceof UserError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw error;
    if (code === "ERR_BUFFER_TOO_LARGE")
      throw damaged(dir, `${name} inflates to more than the ${expected} bytes its name says`);
    throw damaged(dir, `${name} cannot be inflated (${(error as Error).message})`);
  }
  const checked = checkedPiece(dir, name, p, bytes);
  inflated = checked.length <= KEPT_INFLATED_BYTES ? { key, bytes: checked } : null;
  return checked;
}

/** A piece's bytes hold as many bytes and lines as its name says, or it is damaged (a turn would read another's lines). */
function checkedPiece(dir: string, name: string, p: Piece, bytes: Buffer): Buffer {
  if (bytes.length !== p.to.byte - p.from.byte)
    throw damaged(dir, `${name} holds ${bytes.length} bytes, and its name says ${p.to.byte - p.from.byte}`);
  const lines = countLines(bytes);
  if (lines !== p.to.line - p.from.line)
    throw damaged(dir, `${name} holds ${lines} lines, and its name says ${p.to.line - p.from.line}`);
  return bytes;
}

async function readLive(file: string, from: number, to: number | null): Promise<Buffer> {
  const handle = await openBundleFile(file).catch((error: NodeJS.ErrnoException) => {
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

export function missingIsEmpty(error: Error): string[] {
  if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR")
    return [];
  throw error;
}

export function damaged(dir: string, what: string): UserError {
  return new UserError(
    `the conversation of the session in ${dir} is damaged: ${what}`,
    `restore the session's folder from a backup, or remove the session with: nudge session rm ${path.basename(dir)}`,
  );
}

/** How many "\n"-ended lines `bytes` holds. */
export function countLines(bytes: Buffer): number {
  let lines = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) lines++;
  return lines;
}

/** Does the bundle hold any of claude's stream? (One it cannot read counts: something is there.) */
export async function holdsStream(dir: string): Promise<boolean> {
  return streamSize(dir).then(
    (size) => size > 0,
    () => true,
  );
}
