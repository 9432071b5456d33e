/**
 * Images in a prompt: a path to a PNG, JPEG, GIF or WebP file, typed, pasted, or dragged into the
 * terminal (which pastes the path, quoted or with `\ ` for spaces), or written `@path`, is sent to
 * claude as an image content block beside the prompt's text (stream-json input takes
 * `{"type":"image","source":{"type":"base64",…}}`; verified with claude 2.1.329). The type is read
 * from the file's first bytes, not its name. The text keeps the path, so claude knows which image
 * is which; an `@` before it is dropped from what claude gets, since claude would otherwise attach
 * the file a second time itself.
 *
 * A word that names an image file that does not exist is left as text (the prompt may be about a
 * file name), and so is one whose bytes are not an image (`why does fake.png not open?` is about
 * the file): the prompt goes as text, with a note saying why nothing was attached. A real image
 * that cannot go (over the API's limit, or more than MAX_IMAGES) keeps the whole prompt back, said
 * in one line: naming an image is how one attaches it, and claude would answer about a picture it
 * never saw.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { isImageRef } from "../store/image-store.js";
import { visible } from "../base/inert-text.js";

/** The Messages API's limit for one image. */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Images in one prompt. */
const MAX_IMAGES = 20;

const EXTENSION = /\.(png|jpe?g|gif|webp)$/i;
/** A word: quoted as a terminal pastes a dragged file, or with backslash-escaped spaces. */
const WORD = /(?<!\S)@?(?:'[^']+'|"[^"]+"|(?:\\ |[^\s'"])+)/g;

export interface PromptImage {
  /** As written in the prompt (quotes, `@` and all). */
  word: string;
  /** The file's name, for `[image: name.png 120 KB]`. */
  name: string;
  mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
  data: Buffer;
}

export type ContentBlock =
  { type: "text"; text: string } | { type: "image"; source: { type: "base64"; media_type: string; data: string } };

/** The words of a prompt that look like image paths (by extension), as file paths, unquoted. */
export function imageWords(prompt: string): Array<{ word: string; file: string }> {
  const found: Array<{ word: string; file: string }> = [];
  for (const m of prompt.matchAll(WORD)) {
    const word = m[0].replace(/^\(/, "").replace(/[),.;:!?]+$/, "");
    let file = word.startsWith("@") ? word.slice(1) : word;
    if (/^(['"]).*\1$/.test(file)) file = file.slice(1, -1);
    else file = file.replace(/\\ /g, " ");
    if (file.startsWith("file://")) file = decodeURIComponent(file.slice("file://".length));
    if (EXTENSION.test(file)) found.push({ word, file });
  }
  return found;
}

export interface PromptImages {
  images: PromptImage[];
  /** Files named like images that are not images, one line each: `fake.png not attached: not an image (its first bytes are text)`. */
  notAttached: string[];
}

/** The images a prompt names that exist, read and checked. */
export async function promptImages(prompt: string, cwd: string): Promise<PromptImages> {
  const images: PromptImage[] = [];
  const notAttached: string[] = [];
  for (const { word, file } of imageWords(prompt)) {
    const full = path.resolve(cwd, file.startsWith("~/") ? path.join(os.homedir(), file.slice(2)) : file);
    const stat = await fs.stat(full).catch(() => null);
    if (!stat?.isFile()) continue;
    // Shown on the terminal (and in errors): a file name's escape sequences are shown, not obeyed.
    const name = visible(path.basename(full));
    // The type first, from the first bytes alone: a large file that is no image goes as text, unread.
    const head = await firstBytes(full, HEAD_BYTES);
    const mediaType = sniff(head);
    if (!mediaType) {
      if (!notAttached.some((n) => n.startsWith(`${name} `)))
        notAttached.push(
          `${name} not attached: not an image (its first bytes are ${looksLikeText(head) ? "text" : "not a PNG, JPEG, GIF or WebP"})`,
        );
      continue;
    }
    if (stat.size > MAX_IMAGE_BYTES) {
      throw new UserError(
        `the image ${name} is ${megabytes(stat.size)}: claude takes at most ${megabytes(MAX_IMAGE_BYTES)} per image; nothing was sent`,
        "make it smaller (a screenshot of a part of the screen, or a JPEG), then send the prompt again (↑ brings it back)",
      );
    }
    const data = await fs.readFile(full);
    if (!images.some((i) => i.data.equals(data))) images.push({ word, name, mediaType, data });
  }
  if (images.length > MAX_IMAGES)
    throw new UserError(
      `the prompt names ${images.length} images; claude takes at most ${MAX_IMAGES} at once; nothing was sent`,
      "send them in several prompts",
    );
  return { images, notAttached };
}

/** Enough of a file to tell its type, and whether it is text. */
const HEAD_BYTES = 512;

async function firstBytes(file: string, count: number): Promise<Buffer> {
  const handle = await fs.open(file, "r");
  try {
    const buffer = Buffer.alloc(count);
    const { bytesRead } = await handle.read(buffer, 0, count, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The file's start is UTF-8 text (no NUL, decodes cleanly; a character cut at the end is allowed). */
function looksLikeText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 3)));
    return true;
  } catch {
    return false;
  }
}

/** What claude gets: the images, then the text (an `@` before an attached path dropped). */
export function promptContent(text: string, images: PromptImage[]): ContentBlock[] {
  let shown = text;
  for (const image of images) if (image.word.startsWith("@")) shown = shown.split(image.word).join(image.word.slice(1));
  return [
    ...images.map((i): ContentBlock => ({
      type: "image",
      source: { type: "base64", media_type: i.mediaType, data: i.data.toString("base64") },
    })),
    { type: "text", text: shown },
  ];
}

function sniff(data: Buffer): PromptImage["mediaType"] | null {
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return "image/jpeg";
  if (data.subarray(0, 6).toString("latin1") === "GIF87a" || data.subarray(0, 6).toString("latin1") === "GIF89a")
    return "image/gif";
  if (data.subarray(0, 4).toString("latin1") === "RIFF" && data.subarray(8, 12).toString("latin1") === "WEBP")
    return "image/webp";
  return null;
}

/**
 * `[image: shot.png 120 KB]` for a recorded image block's base64; one still a reference after
 * reading (its image missing from the bundle, or damaged) says so rather than the reference's size.
 */
export function imageLabel(name: string, data: string): string {
  if (isImageRef(data)) return `[image: ${name}, missing from the bundle]`;
  const bytes = Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
  return `[image: ${name} ${imageSize(bytes)}]`;
}

/** "1.2 MB", "120 KB", "512 bytes". */
export function imageSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return megabytes(bytes);
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
