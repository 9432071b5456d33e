/**
 * How much an imported archive may hold, and the one error every refusal becomes.
 *
 * The caps are far above any real session (a 200-turn session with large tool outputs is tens of
 * MB, a few hundred entries) and far below what would fill a disk or memory. What an archive
 * unpacks to is also bounded by its own size: a megabyte of gzip that says it holds a gigabyte
 * of zeros is refused before a byte is written. `--max-size` raises the size caps (`maxSizeFlag`).
 */
import { UserError } from "../base/errors.js";
export interface ReadLimits {
  /** Entries the index may list. */
  maxEntries: number;
  /** Bytes of one entry. */
  maxEntryBytes: number;
  /** Bytes of all entries together (what extraction writes). */
  maxTotalBytes: number;
  /** Bytes of the index itself, read into memory. */
  maxIndexBytes: number;
  /** Unpacked bytes per byte of the archive, once past `ratioFloorBytes` (gzip of JSON lines is ~5–15). */
  maxRatio: number;
  /** Up to this many unpacked bytes, any ratio is fine (a small session of repetitive lines). */
  ratioFloorBytes: number;
  /** Bytes of one line of a `.jsonl` entry: every line is parsed as one string somewhere. */
  maxLineBytes: number;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const DEFAULT_LIMITS: ReadLimits = {
  maxEntries: 20_000,
  maxEntryBytes: 256 * MiB,
  maxTotalBytes: 512 * MiB,
  maxIndexBytes: 16 * MiB,
  maxRatio: 50,
  ratioFloorBytes: 64 * MiB,
  // Far above what claude writes on one line (the recorder cuts long tool results; an image is a
  // few MB of base64), far below V8's longest string (512 Mi characters), which a line must become.
  maxLineBytes: 32 * MiB,
};

/** The longest line `--max-size` lets through: a line becomes one string, and V8's longest is 512 Mi characters. */
export const MAX_RAISED_LINE = 256 * MiB;

/**
 * The limits `--max-size <bytes>` sets: per entry and in total, no ratio to the archive's size, and
 * lines as long (up to MAX_RAISED_LINE): nudge exports a session with a 50 MB Write, so it must import it.
 */
export function raisedLimits(maxBytes: number): Partial<ReadLimits> {
  return {
    maxEntryBytes: maxBytes,
    maxTotalBytes: maxBytes,
    maxRatio: Infinity,
    maxLineBytes: Math.max(DEFAULT_LIMITS.maxLineBytes, Math.min(maxBytes, MAX_RAISED_LINE)),
  };
}

/** The hint of a size refusal: the flag, with a value that lets this archive through. */
export function maxSizeFlag(needed: number): string {
  return `if you trust the file, import it with --max-size ${Math.ceil(needed / MiB)}MiB (what it lets the import unpack at most)`;
}

/** `--max-size`'s value: bytes, or a number with K/M/G (KiB/MiB/GiB, KB/MB/GB all taken as powers of 1024). */
export function parseSize(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?$/i.exec(text.trim());
  if (!match) return null;
  const unit = { "": 1, k: 1024, m: MiB, g: GiB }[match[2]!.toLowerCase() as "" | "k" | "m" | "g"];
  const bytes = Math.floor(Number(match[1]) * unit);
  return bytes > 0 ? bytes : null;
}

/** Why an archive is refused; `openExport` turns it into a one-line UserError naming the file. */
export class Refusal extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = "Refusal";
  }
}

/** A refusal as the user reads it, "refusing <file>: why", with its own hint or `hint`; any other error passes through. */
export function refusing(
  name: string,
  hint = "it was damaged or altered since it was exported; ask for a fresh export",
) {
  return (error: unknown): never => {
    throw error instanceof Refusal ? new UserError(`refusing ${name}: ${error.message}`, error.hint ?? hint) : error;
  };
}

export function formatBytes(bytes: number): string {
  if (bytes >= GiB) return `${Number.isInteger(bytes / GiB) ? bytes / GiB : (bytes / GiB).toFixed(1)} GiB`;
  if (bytes >= MiB) return `${Number.isInteger(bytes / MiB) ? bytes / MiB : (bytes / MiB).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
