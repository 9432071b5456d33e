/**
 * Open an export tarball from anyone: extract it into a fresh private temp dir and hand back its
 * verified index, or refuse with one line and leave nothing behind.
 *
 * Not node-tar's Parser: it applies pax and GNU long-name headers before a caller sees the entry
 * they rename, and inflates a gzip, zstd or brotli stream it finds inside the tar. An export holds
 * plain ustar headers for regular files only, so this reads 512-byte blocks itself, decodes each
 * header with node-tar's `Header` (checksum, octal and base-256 fields; tar-header.ts), and
 * refuses anything else before a byte of the entry is written.
 *
 * Nothing is ever made but folders and regular files, inside a folder made here with mode 0700,
 * and every file is created with O_EXCL | O_NOFOLLOW: no entry can write through a link, since no
 * link exists to write through.
 */
import { createHash } from "node:crypto";
import { constants, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { visible } from "../base/inert-text.js";
import { UserError } from "../base/errors.js";
import { isTopFolder, parentFolders } from "./archive-path.js";
import { ByteReader } from "./byte-reader.js";
import {
  EXPORT_FORMAT,
  ExportIndexSchema,
  INDEX_NAME,
  IndexEnvelopeSchema,
  type ExportEntry,
  type ExportIndex,
} from "./export-index.js";
import { inflate } from "./inflate.js";
import {
  DEFAULT_LIMITS,
  MAX_RAISED_LINE,
  Refusal,
  formatBytes,
  maxSizeFlag,
  refusing,
  type ReadLimits,
} from "./limits.js";
import { checkedPath, decode, isZero, quote } from "./tar-header.js";

const BLOCK = 512;
/** After the last entry: two zero blocks, and tar tools pad to a 10 KiB record. */
const END_SLACK = 20 * BLOCK;

export interface OpenedExport {
  /** The private folder holding the entries, by their paths inside the archive's top folder. */
  dir: string;
  /** The archive's top folder, e.g. `nudge-1e834beb3b`. */
  top: string;
  index: ExportIndex;
  /** Where an entry listed in the index was extracted. */
  file(entry: string): string;
  /** Remove the temp dir and everything in it. */
  remove(): Promise<void>;
}

export interface OpenOptions {
  limits?: Partial<ReadLimits>;
  /**
   * Free space to find under the temp dir before writing, in unpacked sizes: 1 for the unpacked
   * files alone; an import stages a second copy beside them (default 1).
   */
  copies?: number;
  /** What to call the temp dir's place in a message about its free space (default: the temp parent). */
  placeName?: string;
  /** Where to make the temp dir (the store's own, so installing is a rename); default the OS's. */
  tempParent?: string;
}

export async function openExport(archive: string, options: OpenOptions = {}): Promise<OpenedExport> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  // The archive is measured (its size bounds what it may unpack to) and its head read at a
  // position before the rest: a pipe (`<(curl …)`) or a device can be neither.
  const stat = await fs.stat(archive).catch(() => null);
  if (stat && !stat.isFile() && !stat.isDirectory())
    throw new UserError(
      `${visible(archive)} is not a file (a pipe or a device): an export is read from a file`,
      "save it to a file first, then import that file",
    );
  const dir = await fs.mkdtemp(path.join(options.tempParent ?? os.tmpdir(), "nudge-import-"));
  try {
    await fs.chmod(dir, 0o700); // mkdtemp makes it 0700 already; say so rather than rely on it
    const space = { copies: options.copies ?? 1, place: options.placeName ?? path.dirname(dir) };
    const { top, index } = await extract(archive, dir, limits, space);
    return {
      dir,
      top,
      index,
      file: (entry) => path.join(dir, ...entry.split("/")),
      remove: () => fs.rm(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    await fs.rm(dir, { recursive: true, force: true });
    if (error instanceof Refusal)
      refusing(
        path.basename(archive),
        "this is not a file made by `nudge session export`, or it was damaged or altered since; ask for a fresh export",
      )(error);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EISDIR" || code === "EACCES")
      throw new UserError(`cannot read ${archive} (${code})`, "check the path of the export file");
    if (code === "ENOSPC" || code === "EDQUOT")
      throw new UserError(
        `not enough disk space to unpack ${path.basename(archive)}`,
        `free some space under ${path.dirname(dir)}, then import again`,
      );
    throw error;
  }
}

interface Expected {
  top: string;
  /** Bytes of the index entry itself. */
  indexBytes: number;
  index: ExportIndex;
  entries: Map<string, ExportEntry>;
  folders: Set<string>;
}

async function extract(
  archive: string,
  dir: string,
  limits: ReadLimits,
  space: { copies: number; place: string },
): Promise<{ top: string; index: ExportIndex }> {
  const archiveBytes = (await fs.stat(archive)).size;
  // Until the index is read, allow its header and body only; then exactly what it lists.
  let cap = BLOCK + padded(limits.maxIndexBytes) + END_SLACK;
  const reader = new ByteReader(inflate(archive, () => cap));
  try {
    const expected = await readIndex(reader, dir, limits);
    const total = expected.index.entries.reduce((n, e) => n + e.bytes, 0);
    const allowed = Math.max(limits.ratioFloorBytes, limits.maxRatio * archiveBytes);
    if (total > allowed) {
      throw new Refusal(
        `its entries add up to ${formatBytes(total)}, more than ${limits.maxRatio} times the archive's size (nudge unpacks that much, or ${formatBytes(limits.ratioFloorBytes)} from a smaller one)`,
        maxSizeFlag(total),
      );
    }
    await checkFreeSpace(dir, total * space.copies, path.basename(archive), space.place);
    cap = expectedSize(expected);
    const seen = new Set<string>([INDEX_NAME]);
    const made = new Set<string>([""]);
    // Small entries are written while the next ones are read; none is left writing on the way out.
    await extractEntries(reader, dir, limits, expected, seen, made);
    if (!(await reader.restIsZero())) throw new Refusal("it has data after the end of the archive");
    const missing = [...expected.entries.keys()].find((entry) => !seen.has(entry));
    if (missing !== undefined)
      throw new Refusal(`entry ${quote(`${expected.top}/${missing}`)} is listed in the index but missing`);
    return { top: expected.top, index: expected.index };
  } finally {
    await reader.close();
  }
}

/** Entries at most this big are read whole, checked, and written while the next is read. */
const SMALL_ENTRY = 256 * 1024;
/** How many such writes may be in flight (at most 4 MB held). */
const WRITES_IN_FLIGHT = 16;

async function extractEntries(
  reader: ByteReader,
  dir: string,
  limits: ReadLimits,
  expected: Expected,
  seen: Set<string>,
  made: Set<string>,
): Promise<void> {
  const writing: Array<Promise<void>> = [];
  const total = expected.index.entries.reduce((n, e) => n + e.bytes, 0);
  try {
    for (;;) {
      const block = await reader.read(BLOCK);
      if (!block) throw new Refusal("it is truncated (no end-of-archive marker)");
      if (isZero(block)) break;
      const header = decode(block);
      const relative = checkedPath(header, expected.top);
      if (seen.has(relative)) throw new Refusal(`entry ${quote(header.path)} appears twice`);
      seen.add(relative);
      if (header.type === "Directory") {
        if (!expected.folders.has(relative))
          throw new Refusal(`entry ${quote(header.path)} is not listed in the index`);
        await makeFolders(dir, [...parentFolders(relative), relative], made);
        continue;
      }
      const listed = expected.entries.get(relative);
      if (!listed) throw new Refusal(`entry ${quote(header.path)} is not listed in the index`);
      if (header.size !== listed.bytes)
        throw new Refusal(`entry ${quote(header.path)} is ${header.size} bytes, but the index says ${listed.bytes}`);
      await makeFolders(dir, parentFolders(relative), made);
      const maxLine = relative.endsWith(".jsonl") ? limits.maxLineBytes : Infinity;
      const file = path.join(dir, ...relative.split("/"));
      let sha256: string;
      if (listed.bytes <= SMALL_ENTRY) {
        // An export is mostly small entries (a patch per turn): one open-write-close each, one after
        // another, was most of an import's time waiting on the disk.
        const data = await readBody(reader, listed.bytes, header.path!);
        new LineLength(maxLine, header.path!, total).push(data);
        sha256 = createHash("sha256").update(data).digest("hex");
        if (sha256 === listed.sha256) writing.push(fs.writeFile(file, data, { flag: NEW_FILE, mode: 0o600 }));
        if (writing.length >= WRITES_IN_FLIGHT) await Promise.all(writing.splice(0));
      } else {
        sha256 = await writeEntry(reader, file, listed.bytes, header.path!, maxLine, total);
      }
      if (sha256 !== listed.sha256)
        throw new Refusal(`entry ${quote(header.path)} does not match its sha256 in the index`);
    }
    await Promise.all(writing.splice(0));
  } finally {
    await Promise.allSettled(writing.splice(0));
  }
}

/** The first entry must be `<top>/nudge-export.json`; it is read into memory and checked whole. */
async function readIndex(reader: ByteReader, dir: string, limits: ReadLimits): Promise<Expected> {
  const block = await reader.read(BLOCK);
  if (!block) throw new Refusal("it is not a tar archive (too short)");
  if (isZero(block)) throw new Refusal("it holds no entries");
  const header = decode(block);
  const [top = "", ...rest] = (header.path ?? "").split("/");
  const first = checkedPath(header, isTopFolder(top) ? top : "");
  if (rest.join("/") !== INDEX_NAME || header.type !== "File")
    throw new Refusal(`its first entry is ${quote(header.path)}, not the index ${INDEX_NAME}`);
  if (header.size! > limits.maxIndexBytes)
    throw new Refusal(
      `its index is ${formatBytes(header.size!)}, more than the ${formatBytes(limits.maxIndexBytes)} nudge reads`,
    );
  const data = await readBody(reader, header.size!, header.path!);
  const index = parseIndex(data);
  if (index.entries.length > limits.maxEntries)
    throw new Refusal(
      `its index lists ${index.entries.length} entries, more than the ${limits.maxEntries} nudge accepts`,
    );
  let total = 0;
  for (const entry of index.entries) {
    if (entry.bytes > limits.maxEntryBytes) {
      throw new Refusal(
        `entry ${quote(`${top}/${entry.path}`)} is ${formatBytes(entry.bytes)}, more than the ${formatBytes(limits.maxEntryBytes)} nudge accepts for one entry`,
        maxSizeFlag(entry.bytes),
      );
    }
    total += entry.bytes;
  }
  if (total > limits.maxTotalBytes)
    throw new Refusal(
      `its entries add up to ${formatBytes(total)}, more than the ${formatBytes(limits.maxTotalBytes)} nudge accepts`,
      maxSizeFlag(total),
    );
  // The index is extracted too: the importer installs what it read, from the same bytes.
  await fs.writeFile(path.join(dir, first), data, {
    flag: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode: 0o600,
  });
  const folders = new Set(["", ...index.entries.flatMap((e) => parentFolders(e.path))]);
  return { top, indexBytes: data.length, index, entries: new Map(index.entries.map((e) => [e.path, e])), folders };
}

function parseIndex(data: Buffer): ExportIndex {
  let json: unknown;
  try {
    json = JSON.parse(data.toString("utf8"));
  } catch {
    throw new Refusal(`its index ${INDEX_NAME} is not valid JSON`);
  }
  const envelope = IndexEnvelopeSchema.safeParse(json);
  if (!envelope.success) throw new Refusal(`its index ${INDEX_NAME} is not a nudge export index`);
  if (envelope.data.format > EXPORT_FORMAT) {
    throw new Refusal(
      `it was made by a newer nudge (export format ${envelope.data.format}; this nudge reads format ${EXPORT_FORMAT})`,
      "upgrade nudge, then import it again",
    );
  }
  const parsed = ExportIndexSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Refusal(
      `its index does not match the export schema (${issue.path.join(".") || "index"}: ${issue.message})`,
    );
  }
  return parsed.data;
}

async function readBody(reader: ByteReader, bytes: number, name: string): Promise<Buffer> {
  const data = await reader.read(bytes);
  if (!data) throw new Refusal(`it is truncated (inside entry ${quote(name)})`);
  await skipPadding(reader, bytes, name);
  return data;
}

/** Every entry is a new file, never through a link: a name met twice or planted is an error. */
const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

async function writeEntry(
  reader: ByteReader,
  file: string,
  bytes: number,
  name: string,
  maxLine: number,
  total: number,
): Promise<string> {
  const hash = createHash("sha256");
  const handle = await fs.open(file, NEW_FILE, 0o600);
  const lines = new LineLength(maxLine, name, total);
  let written = 0;
  try {
    for await (const piece of reader.stream(bytes)) {
      lines.push(piece);
      hash.update(piece);
      await handle.write(piece);
      written += piece.length;
    }
  } finally {
    await handle.close();
  }
  if (written < bytes) throw new Refusal(`it is truncated (inside entry ${quote(name)})`);
  await skipPadding(reader, bytes, name);
  return hash.digest("hex");
}

/**
 * The longest line so far, checked as the bytes stream by: whoever reads the file later turns a
 * line into one string (a 600 MB line is more than V8 can hold), so too long a line is refused here.
 */
class LineLength {
  private current = 0;
  private line = 1;
  constructor(
    private readonly max: number,
    private readonly name: string,
    /** What the archive's entries add up to: the flag named must let them through too. */
    private readonly total: number,
  ) {}

  push(piece: Buffer): void {
    if (this.max === Infinity) return;
    for (let start = 0; ;) {
      const newline = piece.indexOf(0x0a, start);
      this.current += (newline === -1 ? piece.length : newline) - start;
      if (this.current > this.max)
        throw new Refusal(
          `entry ${quote(this.name)} has a line longer than the ${formatBytes(this.max)} nudge reads (line ${this.line})`,
          this.max < MAX_RAISED_LINE ? maxSizeFlag(Math.max(MAX_RAISED_LINE, this.total)) : undefined,
        );
      if (newline === -1) return;
      this.current = 0;
      this.line++;
      start = newline + 1;
    }
  }
}

/** Refuse before writing what the disk cannot hold, rather than fill it and fail half-way. */
async function checkFreeSpace(dir: string, bytes: number, name: string, place: string): Promise<void> {
  const stats = await fs.statfs(dir);
  const free = stats.bavail * stats.bsize;
  if (bytes + SPACE_MARGIN > free) {
    throw new UserError(
      `not enough disk space to import ${name}: it needs ${formatBytes(bytes)} and more than ${formatBytes(SPACE_MARGIN)} to spare, and ${place} has ${formatBytes(free)} free`,
      "free some space there, then import again",
    );
  }
}

/** Left free after an import: the bundle's small files, claude's, git's own writes. */
const SPACE_MARGIN = 16 * 1024 * 1024;

async function skipPadding(reader: ByteReader, bytes: number, name: string): Promise<void> {
  const pad = padded(bytes) - bytes;
  if (pad && !(await reader.read(pad))) throw new Refusal(`it is truncated (inside entry ${quote(name)})`);
}

/** Make each folder once, in order, with mkdir (which never follows a link at its last step). */
async function makeFolders(dir: string, folders: string[], made: Set<string>): Promise<void> {
  for (const folder of folders) {
    if (made.has(folder)) continue;
    await fs.mkdir(path.join(dir, ...folder.split("/")), { mode: 0o700 });
    made.add(folder);
  }
}

/** Inflated bytes of an archive holding exactly what the index lists (each implied folder allowed once). */
function expectedSize(expected: Expected): number {
  let total = BLOCK + padded(expected.indexBytes);
  for (const entry of expected.entries.values()) total += BLOCK + padded(entry.bytes);
  return total + BLOCK * expected.folders.size + END_SLACK;
}

function padded(bytes: number): number {
  return Math.ceil(bytes / BLOCK) * BLOCK;
}
