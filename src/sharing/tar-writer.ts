/**
 * A `.tar.gz` whose bytes depend only on what goes in it: the same entries give the same file.
 *
 * - Entries are written in the order given (the export writer puts its index first, then sorts).
 * - Every header is plain ustar with fixed fields: mtime FIXED_MTIME, uid/gid 0, no user or group
 *   name, mode 0644, type "file". No pax headers (they would carry times); a name that would need
 *   one is refused, and `archive-path.ts` keeps names short and ASCII so none does.
 * - No folder entries: tar tools make the folders of the files they extract.
 * - gzip: node's zlib writes mtime 0 and the OS byte of the platform node was built for (3 on
 *   Linux, 10 on Windows, 19 on macOS); the OS byte is overwritten with 255 ("unknown"), as
 *   node-tar's `portable` mode does, so the header does not depend on the platform. The deflate
 *   stream itself is zlib's: the same node gives the same bytes.
 * - Files are streamed, never read whole, and hashed on the way: a file that changed since its
 *   size and sha256 were taken is an error, not a silently inconsistent archive.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, promises as fs } from "node:fs";
import path from "node:path";
import { faultPoint } from "../base/fault-injection.js";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { Header } from "tar";
import { InternalError, UserError } from "../base/errors.js";

const FIXED_MTIME = new Date("2000-01-01T00:00:00Z");
const BLOCK = 512;

export type TarSource = Uint8Array | { file: string };

export interface TarFile {
  /** The full name inside the archive, `/`-separated. */
  path: string;
  source: TarSource;
  bytes: number;
  sha256: string;
}

/** Write `files` as a gzipped tar at `out`, atomically (a temp file beside it, renamed into place). */
export async function writeTarGz(
  out: string,
  files: TarFile[],
  beforeTemp?: (temp: string) => Promise<void>,
): Promise<{ bytes: number }> {
  const temp = path.join(
    path.dirname(out),
    `.${path.basename(out)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  await beforeTemp?.(temp);
  try {
    await pipeline(
      Readable.from(tarBlocks(files)),
      createGzip({ level: 6 }),
      portableGzipHeader(),
      createWriteStream(temp, { flags: "wx", mode: 0o600 }),
    );
    const handle = await fs.open(temp, "r");
    try {
      await handle.sync(); // on disk before it takes the final name
    } finally {
      await handle.close();
    }
    await fs.rename(temp, out);
    return { bytes: (await fs.stat(out)).size };
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

async function* tarBlocks(files: TarFile[]): AsyncGenerator<Buffer> {
  for (const file of files) {
    faultPoint("export-write"); // the temp file is open and partly written
    yield header(file.path, file.bytes);
    const hash = createHash("sha256");
    let seen = 0;
    for await (const chunk of contents(file.source)) {
      seen += chunk.length;
      if (seen > file.bytes) break;
      hash.update(chunk);
      yield chunk;
    }
    if (seen !== file.bytes || hash.digest("hex") !== file.sha256) {
      throw new UserError(`${describe(file)} changed while it was being exported`, "run the export again");
    }
    const pad = (BLOCK - (file.bytes % BLOCK)) % BLOCK;
    if (pad) yield Buffer.alloc(pad);
  }
  yield Buffer.alloc(2 * BLOCK); // end of archive: two zero blocks
}

function header(name: string, bytes: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const needPax = new Header({
    path: name,
    mode: 0o644,
    uid: 0,
    gid: 0,
    size: bytes,
    mtime: FIXED_MTIME,
    type: "File",
    uname: "",
    gname: "",
  }).encode(block);
  if (needPax) throw new InternalError(`the archive name ${JSON.stringify(name)} does not fit a plain tar header`);
  return block;
}

function contents(source: TarSource): Iterable<Buffer> | AsyncIterable<Buffer> {
  if (source instanceof Uint8Array) return [Buffer.from(source.buffer, source.byteOffset, source.byteLength)];
  return createReadStream(source.file);
}

function describe(file: TarFile): string {
  return file.source instanceof Uint8Array ? file.path : file.source.file;
}

/** Byte 9 of a gzip header names the OS that wrote it; 255 ("unknown") keeps the file the same everywhere. */
function portableGzipHeader(): Transform {
  let first = true;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (first) {
        // zlib emits the 10-byte header in its first chunk.
        if (chunk.length < 10) return done(new InternalError("gzip wrote a short first chunk"));
        chunk[9] = 255;
        first = false;
      }
      done(null, chunk);
    },
  });
}
