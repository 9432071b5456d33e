/**
 * The cache behind claude-session-scan.ts: an index (per folder of claude's, each transcript's
 * name, size, mtime, working directory and where its card is) and a cards file of one JSON card a
 * line. The index is laid out to parse fast (names in one array, numbers in one flat array: no
 * object per transcript); the cards file is held open and only the cards a listing shows are read.
 * nudge's own files, rebuilt from claude's whenever they are not what this version wrote.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, readSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { openCacheFile, readCacheFile } from "../base/cache-file.js";
import { ensureDir, writeFileAtomic } from "../store/atomic-write.js";

const CACHE_VERSION = 6;
/** Numbers per transcript in `meta`: size, mtimeMs, index into `cwds`, the card's offset and length. */
export const FIELDS = 5;

export interface CachedFolder {
  cwds: Array<string | null>;
  /** Transcript file names. */
  names: string[];
  /** FIELDS numbers per name, in the same order. */
  meta: number[];
}

export interface Cache {
  /** The cards file this index points into (a new one with each write: an older index keeps its own). */
  cards: string;
  folders: Record<string, CachedFolder>;
}

/** A transcript as a new index lists it: its card a slice of the old cards file, or new bytes. */
export interface SavedEntry {
  name: string;
  size: number;
  mtimeMs: number;
  cwd: string | null;
  card: Buffer;
}

export async function loadCache(file: string): Promise<Cache> {
  try {
    const json = JSON.parse(readCacheFile(file) ?? "") as Partial<Cache> & { version?: unknown };
    if (json.version === CACHE_VERSION && json.folders && typeof json.folders === "object") {
      const folders: Cache["folders"] = {};
      for (const name in json.folders) {
        const f = json.folders[name];
        // Shapes checked here; each number is checked where it is used (a wrong one is a miss).
        if (
          f &&
          Array.isArray(f.cwds) &&
          Array.isArray(f.names) &&
          Array.isArray(f.meta) &&
          f.meta.length === f.names.length * FIELDS
        )
          folders[name] = f;
      }
      return {
        cards: typeof json.cards === "string" && /^[\w.-]+\.cards$/.test(json.cards) ? json.cards : "",
        folders,
      };
    }
  } catch {
    // none yet, or damaged: rebuilt
  }
  return { cards: "", folders: {} };
}

/** The working directory a cached entry names (a damaged index: null). */
export function cwdAt(folder: CachedFolder, i: number): string | null {
  const cwd = folder.cwds[folder.meta[i * FIELDS + 2]!];
  return typeof cwd === "string" ? cwd : null;
}

/** The cards file an index points into, open: its size, one card read, closed. */
export interface CardsFile {
  size: number;
  read(at: number, length: number): Buffer;
  close(): void;
}

/** Held open, not read: a writer meanwhile removes the file by name, and an open file stays readable. */
export function openCards(file: string | null): CardsFile {
  // Gone (another listing replaced it), never written, or not a file: every card is read again.
  let fd = file ? openCacheFile(file) : null;
  const size = fd === null ? 0 : fstatSync(fd).size;
  return {
    size,
    read(at, length) {
      const ok = fd !== null && Number.isInteger(at) && Number.isInteger(length) && length > 0 && at + length <= size;
      if (!ok) return Buffer.alloc(0);
      const buffer = Buffer.alloc(length);
      try {
        return buffer.subarray(0, readSync(fd!, buffer, 0, length, at));
      } catch {
        return Buffer.alloc(0);
      }
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/**
 * A new cards file, then the index that names it, then the older cards files removed (the one the
 * old index named, and any an older version of nudge left): a reader of the old index meanwhile
 * reads the cards file it holds open (or, gone before it opened it, reads the transcripts again).
 */
export async function saveCache(base: string, folders: Map<string, SavedEntry[]>): Promise<void> {
  const pieces: Buffer[] = [];
  let at = 0;
  const cardsName = `${path.basename(base)}.${randomBytes(4).toString("hex")}.cards`;
  const index: Cache & { version: number } = { version: CACHE_VERSION, cards: cardsName, folders: {} };
  for (const [folder, entries] of folders) {
    const f: CachedFolder = { cwds: [], names: [], meta: [] };
    for (const e of entries) {
      let k = f.cwds.indexOf(e.cwd);
      if (k === -1) k = f.cwds.push(e.cwd) - 1;
      f.names.push(e.name);
      f.meta.push(e.size, e.mtimeMs, k, at, e.card.length);
      pieces.push(e.card, NEWLINE);
      at += e.card.length + 1;
    }
    index.folders[folder] = f;
  }
  await ensureDir(path.dirname(base));
  await writeFileAtomic(path.join(path.dirname(base), cardsName), Buffer.concat(pieces, at));
  await writeFileAtomic(base + ".json", JSON.stringify(index));
  const prefix = `${path.basename(base)}.`;
  for (const name of await readdir(path.dirname(base)))
    if (name.startsWith(prefix) && name.endsWith(".cards") && name !== cardsName)
      await rm(path.join(path.dirname(base), name), { force: true });
}

const NEWLINE = Buffer.from("\n");
