/**
 * The bundle's copy of claude's transcript, kept compressed: `claude/<id>.jsonl.gz`, one gzip
 * member per piece appended (a turn's new bytes, at most 4 MB a member). Many members in a row
 * are still one valid gzip file: `gunzip` or zlib gives back the transcript byte for byte.
 *
 * Each member's header carries nudge's own extra field ("Nu", RFC 1952's FEXTRA): where its bytes
 * start in the transcript, how many there are, and the member's own length on disk. So the
 * members are walked by reading their headers alone, a cut at a turn's end is found without
 * inflating anything, and a member half written by a killed process (its length runs past the
 * end of the file) is told apart from whole ones and cut off.
 *
 * Bundles written before this keep a plain `claude/<id>.jsonl`; every reader takes either (the
 * compressed one first). The name in the turn records stays `claude/<id>.jsonl`.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { UserError } from "../base/errors.js";
import { openBundleFile } from "./bundle-links.js";

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

/** The fixed start of every member nudge writes: gzip magic, deflate, FEXTRA, no mtime, XFL 0, OS unknown, XLEN 28, subfield "Nu" of 24 bytes. */
const HEAD = Buffer.from([0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0x00, 0xff, 28, 0, 0x4e, 0x75, 24, 0]);
const HEADER_BYTES = HEAD.length + 24;
/** Standard gzip header length: what zlib's own gzip output begins with, replaced by ours. */
const ZLIB_HEADER_BYTES = 10;
/** A transcript's append is split into members of at most this much (each is inflated in memory). */
export const MEMBER_BYTES = 4 << 20;

export const GZ_SUFFIX = ".gz";

export interface Member {
  /** Where the member starts in the compressed file. */
  at: number;
  /** Its length in the compressed file, header and trailer included. */
  length: number;
  /** Where its bytes start in the transcript, and how many. */
  start: number;
  bytes: number;
}

export interface Members {
  members: Member[];
  /** The transcript's length the whole members hold. */
  bytes: number;
  /** Where the whole members end in the file; the file's length when nothing follows them. */
  end: number;
  /** The file's length: more than `end` when a member was half written. */
  size: number;
}

/** Which copy a bundle holds for a transcript name (`claude/<id>.jsonl`): the compressed one, an old plain one, or none. */
export async function findCopy(bundleDir: string, name: string): Promise<{ file: string; compressed: boolean } | null> {
  const gz = path.join(bundleDir, name + GZ_SUFFIX);
  if (await isFile(gz)) return { file: gz, compressed: true };
  const plain = path.join(bundleDir, name);
  if (await isFile(plain)) return { file: plain, compressed: false };
  return null;
}

async function isFile(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** One member holding `data`, which starts at `start` in the transcript. */
async function encodeMember(start: number, data: Buffer): Promise<Buffer> {
  const body = (await gzip(data)).subarray(ZLIB_HEADER_BYTES); // deflate data + CRC32 + ISIZE, our header instead of zlib's
  const header = Buffer.alloc(HEADER_BYTES);
  HEAD.copy(header);
  header.writeBigUInt64LE(BigInt(start), HEAD.length);
  header.writeBigUInt64LE(BigInt(data.length), HEAD.length + 8);
  header.writeBigUInt64LE(BigInt(HEADER_BYTES + body.length), HEAD.length + 16);
  return Buffer.concat([header, body]);
}

/** `data` as members (split at MEMBER_BYTES), the first starting at `start` in the transcript. */
export async function encodeMembers(start: number, data: Buffer): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let at = 0; at < data.length; at += MEMBER_BYTES)
    out.push(await encodeMember(start + at, data.subarray(at, at + MEMBER_BYTES)));
  return out;
}

/**
 * The whole members of a compressed copy, read from their headers. The walk stops at the first
 * member that is not whole or not nudge's (a killed append), or that does not start where the one
 * before ended in the transcript; `end` says where.
 */
export async function readMembers(file: string): Promise<Members> {
  const handle = await openBundleFile(file);
  try {
    const size = (await handle.stat()).size;
    const members: Member[] = [];
    const header = Buffer.alloc(HEADER_BYTES);
    let at = 0;
    let bytes = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(header, 0, HEADER_BYTES, at);
      if (bytesRead < HEADER_BYTES || !header.subarray(0, HEAD.length).equals(HEAD)) break;
      const start = Number(header.readBigUInt64LE(HEAD.length));
      const length = Number(header.readBigUInt64LE(HEAD.length + 16));
      if (start !== bytes || length <= HEADER_BYTES || at + length > size) break;
      const member = { at, length, start, bytes: Number(header.readBigUInt64LE(HEAD.length + 8)) };
      members.push(member);
      at += length;
      bytes += member.bytes;
    }
    return { members, bytes, end: at, size };
  } finally {
    await handle.close();
  }
}

/** A copy that cannot give claude's bytes back: the user's to know about, not a bug of nudge's. */
export function damaged(file: string, why: string): UserError {
  return new UserError(
    `the bundle's copy of claude's transcript ${file} is damaged: ${why}`,
    "nothing was changed; the session's own logs are intact: restore that file from a backup or an export of the session, or work where claude's own transcript still is (its config dir), which nudge prefers",
  );
}

/** The transcript bytes one member holds (its CRC checked by zlib). */
export async function inflateMember(file: string, member: Member): Promise<Buffer> {
  const handle = await openBundleFile(file);
  try {
    const raw = Buffer.alloc(member.length);
    const { bytesRead } = await handle.read(raw, 0, member.length, member.at);
    const data = await gunzip(raw.subarray(0, bytesRead)).catch((error: unknown) => {
      throw damaged(file, `its part at byte ${member.at} does not inflate (${(error as Error).message})`);
    });
    if (data.length !== member.bytes)
      throw damaged(file, `its part at byte ${member.at} holds ${data.length} bytes, its header says ${member.bytes}`);
    return data;
  } finally {
    await handle.close();
  }
}

/**
 * Call `each` with the transcript's bytes in order, up to `limit` (all by default), a member at a
 * time (never the whole transcript in memory). A plain copy is read in blocks of the same size.
 */
async function readCopyInPieces(
  copy: { file: string; compressed: boolean },
  each: (piece: Buffer) => Promise<void> | void,
  limit = Infinity,
): Promise<number> {
  let done = 0;
  if (copy.compressed) {
    for (const m of (await readMembers(copy.file)).members) {
      if (done >= limit) break;
      const data = await inflateMember(copy.file, m);
      const piece = data.subarray(0, Math.min(data.length, limit - done));
      await each(piece);
      done += piece.length;
    }
    return done;
  }
  const handle = await openBundleFile(copy.file);
  try {
    const block = Buffer.alloc(MEMBER_BYTES);
    while (done < limit) {
      const { bytesRead } = await handle.read(block, 0, Math.min(block.length, limit - done), done);
      if (bytesRead === 0) break;
      await each(Buffer.from(block.subarray(0, bytesRead)));
      done += bytesRead;
    }
    return done;
  } finally {
    await handle.close();
  }
}

/** The transcript a copy holds, whole or its first `limit` bytes, in memory (repairs and the small reads). */
export async function readCopy(copy: { file: string; compressed: boolean }, limit = Infinity): Promise<Buffer> {
  const pieces: Buffer[] = [];
  await readCopyInPieces(copy, (p) => void pieces.push(p), limit);
  return Buffer.concat(pieces);
}

/** The transcript a copy holds (its first `limit` bytes), written out plain to `to` (an export's staging). */
export async function writePlain(
  copy: { file: string; compressed: boolean },
  to: string,
  limit = Infinity,
): Promise<number> {
  const handle = await fs.open(to, "wx");
  try {
    const bytes = await readCopyInPieces(copy, async (p) => void (await handle.write(p)), limit);
    await handle.sync();
    return bytes;
  } finally {
    await handle.close();
  }
}

/**
 * The first `bytes` of a copy into a new compressed copy `to` (a fork cut at a turn's end). Where
 * the cut falls at a member's end, as a turn's end does, the members are copied as they are (in
 * the kernel, nothing inflated); else the part is compressed again.
 */
export async function copyCompressedPrefix(
  copy: { file: string; compressed: boolean },
  to: string,
  bytes: number,
): Promise<void> {
  const read = copy.compressed ? await readMembers(copy.file) : null;
  // A copy cut short on disk would give the fork fewer turns than it says it has, silently.
  const holds = read ? read.bytes : (await fs.stat(copy.file)).size;
  if (holds < bytes)
    throw damaged(
      copy.file,
      `it holds ${holds} bytes of claude's transcript, and the turns it is cut at need ${bytes}`,
    );
  if (read) {
    const { members } = read;
    const last = members.find((m) => m.start + m.bytes === bytes);
    if (last || bytes === 0) {
      await fs.copyFile(copy.file, to, fs.constants.COPYFILE_EXCL);
      await fs.truncate(to, last ? last.at + last.length : 0);
      return;
    }
  }
  const handle = await fs.open(to, "wx");
  try {
    let start = 0;
    await readCopyInPieces(
      copy,
      async (piece) => {
        for (const m of await encodeMembers(start, piece)) await handle.write(m);
        start += piece.length;
      },
      bytes,
    );
  } finally {
    await handle.close();
  }
}
