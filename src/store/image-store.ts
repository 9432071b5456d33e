/**
 * Images kept once per bundle, by content. A prompt with an image is a line of base64 (1.4 MB for
 * a 1 MB PNG) in input.jsonl, and claude echoes it (often re-encoded) into conversation.jsonl, at
 * every turn that attaches it. So the lines are stored with each image block's base64 replaced by
 * a reference to `images/<sha256>`, which holds the image's bytes once, and every reader gets the
 * lines back through `expandImages`, byte for byte as they were written or read.
 *
 * The reference, `"data":"nudge-image:sha256:<hex>"` inside an image block's `source`, is not
 * base64 (which has no `:` or `-`), so no image data claude or nudge writes looks like one. A data string is replaced only when decoding and encoding it again gives the same
 * text (canonical base64, no escapes), so expanding it gives the original bytes; anything else,
 * and images under `MIN_STORED_BYTES`, stay inline as before. Bundles from before this (inline
 * base64 everywhere) read as they always did.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { readBundleFile } from "./bundle-links.js";

export const IMAGES_DIR = "images";
const REF_PREFIX = "nudge-image:sha256:";
/** Smaller images stay inline: a file of their own would cost more than the copies. */
const MIN_STORED_BYTES = 3 * 1024;
/** Where an image block's data starts, as claude and nudge both write it. */
const SOURCE = '"source":{"type":"base64","media_type":"image/';
const INLINE = /("source":\{"type":"base64","media_type":"image\/[a-z]{1,10}","data":")([A-Za-z0-9+/]+={0,2})"/g;
const REF =
  /("source":\{"type":"base64","media_type":"image\/[a-z]{1,10}","data":")nudge-image:sha256:([0-9a-f]{64})"/g;
/** A stored image's file name. */
export const IMAGE_NAME = /^[0-9a-f]{64}$/;

export function imagesDir(bundleDir: string): string {
  return path.join(bundleDir, IMAGES_DIR);
}

/**
 * The line as stored: each large image's base64 replaced by its reference, the image written to
 * `images/<sha256>` first (temp file, fsync, rename: a crash leaves the image whole or absent,
 * never a line pointing at half an image). An image already there is not written again.
 */
export function storeImages(bundleDir: string, line: Buffer): Buffer {
  if (line.length < MIN_STORED_BYTES || line.indexOf(SOURCE) === -1) return line;
  // latin1: one character per byte, so everything but the replaced data keeps its exact bytes.
  const text = line.toString("latin1");
  let changed = false;
  const stored = text.replace(INLINE, (whole, head: string, data: string) => {
    if (data.length < (MIN_STORED_BYTES * 4) / 3) return whole;
    const bytes = Buffer.from(data, "base64");
    if (bytes.toString("base64") !== data) return whole; // not canonical: it would not come back the same
    const hash = createHash("sha256").update(bytes).digest("hex");
    writeImage(bundleDir, hash, bytes);
    changed = true;
    return `${head}${REF_PREFIX}${hash}"`;
  });
  return changed ? Buffer.from(stored, "latin1") : line;
}

function writeImage(bundleDir: string, hash: string, bytes: Buffer): void {
  const dir = imagesDir(bundleDir);
  const file = path.join(dir, hash);
  if (fs.statSync(file, { throwIfNoEntry: false })?.size === bytes.length) return;
  fs.mkdirSync(dir, { recursive: true });
  const temp = path.join(dir, `.${hash}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    const fd = fs.openSync(temp, "wx", 0o644);
    try {
      for (let done = 0; done < bytes.length;) done += fs.writeSync(fd, bytes, done, bytes.length - done);
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
    // The name durable too, before a line that names it can be (the logs are synced at each turn's end).
    const dirFd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/** An image block's data that is still a reference after `expandImages`: its image is missing from the bundle, or damaged. */
export function isImageRef(data: string): boolean {
  return data.startsWith(REF_PREFIX);
}

/** Whether a stored line names a stored image (the cheap test before `expandImages`). */
export function hasImageRefs(line: Buffer): boolean {
  return line.indexOf(REF_PREFIX) !== -1;
}

/** The images a stored line names, by hash. */
function imageRefs(line: Buffer | string): string[] {
  const text = typeof line === "string" ? line : line.toString("latin1");
  if (!text.includes(REF_PREFIX)) return [];
  return [...text.matchAll(REF)].map((m) => m[2]!);
}

/** base64 of stored images, shared by the lines of one read (a prompt's image is echoed, and sent again). */
export type ImageCache = Map<string, string | null>;

/**
 * The line as it was written: each reference replaced by its image's base64. An image missing or
 * not matching its hash (damaged on disk) leaves its reference in place rather than other bytes.
 */
export async function expandImages(bundleDir: string, line: Buffer, cache: ImageCache = new Map()): Promise<Buffer> {
  if (!hasImageRefs(line)) return line;
  const text = line.toString("latin1");
  for (const hash of imageRefs(text)) if (!cache.has(hash)) cache.set(hash, await loadImage(bundleDir, hash));
  return Buffer.from(
    text.replace(REF, (whole, head: string, hash: string) => {
      const data = cache.get(hash);
      return data ? `${head}${data}"` : whole;
    }),
    "latin1",
  );
}

/** Expand each line (as `expandImages`), lines without references untouched; `stored` keeps an expanded line's length in its file. */
export async function expandLines<T extends { bytes: Buffer; stored?: number }>(
  bundleDir: string,
  lines: T[],
): Promise<T[]> {
  if (!lines.some((l) => hasImageRefs(l.bytes))) return lines;
  const cache: ImageCache = new Map();
  const out: T[] = [];
  for (const line of lines)
    out.push(
      hasImageRefs(line.bytes)
        ? { ...line, bytes: await expandImages(bundleDir, line.bytes, cache), stored: line.bytes.length }
        : line,
    );
  return out;
}

async function loadImage(bundleDir: string, hash: string): Promise<string | null> {
  // Through a link nothing is read (the image is then missing, as a damaged one is).
  const bytes = await readBundleFile(path.join(imagesDir(bundleDir), hash)).catch(() => null);
  if (!bytes || createHash("sha256").update(bytes).digest("hex") !== hash) return null;
  return bytes.toString("base64");
}

/**
 * Give a fork (or any bundle made from another) the images of `from`: hard links, so a fork costs
 * no second copy (a copy where links cannot be made). Images its lines do not name are harmless.
 */
export async function shareImages(fromBundle: string, toBundle: string): Promise<void> {
  const names = (await fs.promises.readdir(imagesDir(fromBundle)).catch(() => [] as string[])).filter((n) =>
    IMAGE_NAME.test(n),
  );
  if (names.length === 0) return;
  await fs.promises.mkdir(imagesDir(toBundle), { recursive: true });
  for (const name of names) {
    const from = path.join(imagesDir(fromBundle), name);
    const to = path.join(imagesDir(toBundle), name);
    await fs.promises.link(from, to).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") return;
      await fs.promises.copyFile(from, to);
    });
  }
}

/** The images a log's lines name, read a chunk at a time (a 50 MB tool input's stream is hundreds of MB). */
export async function imageRefsInFile(file: string): Promise<Set<string>> {
  const found = new Set<string>();
  // A reference with the `"data":"` before it and the quote after it, cut by a chunk's end, is whole in the tail kept.
  const keep = '"data":"'.length + REF_PREFIX.length + 64;
  let tail = Buffer.alloc(0);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    const bytes = tail.length ? Buffer.concat([tail, chunk as Buffer]) : (chunk as Buffer);
    imageRefsIn(bytes, found);
    tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - keep)));
  }
  return found;
}

/** The images a stored file's lines name (a log read whole, without making it one string). */
function imageRefsIn(bytes: Buffer, found = new Set<string>()): Set<string> {
  const before = Buffer.from('"data":"');
  for (let at = bytes.indexOf(REF_PREFIX); at !== -1; at = bytes.indexOf(REF_PREFIX, at + 1)) {
    const hash = bytes.toString("latin1", at + REF_PREFIX.length, at + REF_PREFIX.length + 64);
    const framed = bytes.subarray(at - before.length, at).equals(before) && bytes[at + REF_PREFIX.length + 64] === 0x22;
    if (framed && IMAGE_NAME.test(hash)) found.add(hash);
  }
  return found;
}
