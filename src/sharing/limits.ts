/**
 * How much an imported archive may hold, and the one error every refusal becomes.
 *
 * The caps are far above any real session (a 200-turn session with large tool outputs is tens of
 * MB, a few hundred entries) and far below what would fill a disk or memory.
 */
import { UserError } from "../errors.js";
export interface ReadLimits {
  /** Entries the index may list. */
  maxEntries: number;
  /** Bytes of one entry. */
  maxEntryBytes: number;
  /** Bytes of all entries together (what extraction writes). */
  maxTotalBytes: number;
  /** Bytes of the index itself, read into memory. */
  maxIndexBytes: number;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const DEFAULT_LIMITS: ReadLimits = {
  maxEntries: 20_000,
  maxEntryBytes: 1 * GiB,
  maxTotalBytes: 2 * GiB,
  maxIndexBytes: 16 * MiB,
};

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
export function refusing(name: string, hint = "it was damaged or altered since it was exported; ask for a fresh export") {
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
