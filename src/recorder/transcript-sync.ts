/**
 * Keeps the bundle's copy of claude's own files for a claude session up to date after each turn:
 * the transcript (`claude/<id>.jsonl`) and its side folder (`claude/<id>/`: subagent
 * transcripts, large tool results), so the conversation can be resumed on another machine or
 * after claude's config is gone.
 *
 * claude appends to these files, so only the new bytes are copied: a turn costs what the turn
 * added, not the whole history again. The last block already copied is compared first; a file
 * rewritten in place (shorter, or different where we had copied it) is copied again whole.
 */
import { createReadStream, promises as fs } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createWriteStream } from "node:fs";
import { copyFileAtomic, ensureDir } from "../bundle/atomic-write.js";
import { findTranscript } from "../claude/transcript.js";
import { faultPoint } from "../fault-injection.js";
import { transcriptName } from "../bundle/transcript-name.js";

const TAIL_CHECK = 4096;

export interface TranscriptCopy {
  /** Path inside the bundle, e.g. claude/<id>.jsonl. */
  name: string;
  /** The copy's length now. */
  bytes: number;
}

export class TranscriptSync {
  private readonly sources = new Map<string, string>();

  constructor(
    private readonly bundleDir: string,
    private readonly configDir: string,
    private readonly cwd: string,
  ) {}

  /** Bring the copy of one claude session up to date; null when claude's transcript is not found. */
  async sync(claudeSessionId: string): Promise<TranscriptCopy | null> {
    const source = await this.sourceOf(claudeSessionId);
    if (!source) return null;
    const name = transcriptName(claudeSessionId);
    const bytes = await syncFile(source, path.join(this.bundleDir, name));
    await syncFolder(source.replace(/\.jsonl$/, ""), path.join(this.bundleDir, "claude", claudeSessionId));
    return { name, bytes };
  }

  private async sourceOf(claudeSessionId: string): Promise<string | null> {
    const known = this.sources.get(claudeSessionId);
    if (known) return known;
    const found = await findTranscript(this.configDir, this.cwd, claudeSessionId);
    if (found) this.sources.set(claudeSessionId, found);
    return found;
  }
}

/** Append what `source` gained since the copy was made, or copy it whole if it was rewritten. */
async function syncFile(source: string, copy: string): Promise<number> {
  const [from, to] = await Promise.all([fs.stat(source), fs.stat(copy).catch(() => null)]);
  if (!to || to.size > from.size || !(await sameBlock(source, copy, Math.max(0, to.size - TAIL_CHECK), to.size))) {
    await ensureDir(path.dirname(copy));
    await copyFileAtomic(source, copy);
    return from.size;
  }
  if (to.size === from.size) return to.size;
  faultPoint("transcript-append");
  // Appending in place: a crash midway leaves a shorter copy whose bytes are still the source's,
  // which the next sync continues from.
  await pipeline(createReadStream(source, { start: to.size, end: from.size - 1 }), createWriteStream(copy, { flags: "a" }));
  const handle = await fs.open(copy, "r");
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
  return from.size;
}

/** Do two files hold the same bytes in [start, end)? */
async function sameBlock(a: string, b: string, start: number, end: number): Promise<boolean> {
  if (end <= start) return true;
  const [x, y] = await Promise.all([readRange(a, start, end), readRange(b, start, end)]);
  return x.equals(y);
}

async function readRange(file: string, start: number, end: number): Promise<Buffer> {
  const handle = await fs.open(file, "r");
  try {
    const buffer = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Mirror a side folder: new and grown files are brought over; nothing is ever deleted from the copy. */
async function syncFolder(source: string, copy: string): Promise<void> {
  let entries;
  try {
    entries = await fs.readdir(source, { withFileTypes: true });
  } catch {
    return; // no side folder (no subagent, no large tool result): nothing to keep
  }
  for (const entry of entries) {
    // Names come from claude's folder; only plain names are taken, never a link out of it.
    if (!/^[A-Za-z0-9._-]+$/.test(entry.name) || entry.name.startsWith("..")) continue;
    const from = path.join(source, entry.name);
    const to = path.join(copy, entry.name);
    if (entry.isDirectory()) await syncFolder(from, to);
    else if (entry.isFile()) await syncFile(from, to);
  }
}
