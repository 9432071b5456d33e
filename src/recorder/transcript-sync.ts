/**
 * Keeps the bundle's copy of claude's own files for a claude session up to date after each turn:
 * the transcript (`claude/<id>.jsonl.gz`, compressed: store/transcript-copy.ts) and its side
 * folder (`claude/<id>/`: subagent transcripts, large tool results, kept plain), so the
 * conversation can be resumed on another machine or after claude's config is gone.
 *
 * claude appends to these files, so only the new bytes are copied: a turn costs what the turn
 * added (compressed, one gzip member), not the whole history again. The last block already copied
 * is compared first; a file rewritten in place (shorter, or different where we had copied it) is
 * copied again whole.
 */
import { createReadStream, promises as fs } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createWriteStream } from "node:fs";
import { copyFileAtomic, ensureDir, replaceAtomically } from "../store/atomic-write.js";
import { encodeMembers, GZ_SUFFIX, inflateMember, MEMBER_BYTES, readMembers } from "../store/transcript-copy.js";
import { claudeTempFile, findTranscript } from "../claude/transcript.js";
import { faultPoint } from "../base/fault-injection.js";
import { transcriptName } from "../store/transcript-name.js";

const TAIL_CHECK = 4096;

export interface TranscriptCopy {
  /** Path inside the bundle, e.g. claude/<id>.jsonl. */
  name: string;
  /** The copy's length now. */
  bytes: number;
}

/** What this process knows of a compressed copy it wrote last: its length on disk, the transcript's length, its last bytes. */
interface Known {
  size: number;
  bytes: number;
  tail: Buffer;
}

export class TranscriptSync {
  private readonly sources = new Map<string, string>();
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly bundleDir: string,
    private readonly configDir: string,
    private readonly cwd: string,
  ) {}

  /**
   * Bring the copy of one claude session up to date (or up to `upTo` bytes: where a turn of claude's
   * own UI ended, so the next turn's part starts there); null when claude's transcript is not found.
   */
  async sync(claudeSessionId: string, upTo?: number): Promise<TranscriptCopy | null> {
    const source = await this.sourceOf(claudeSessionId);
    // A link in claude's folder (a sandboxed claude can write there) would copy what it points at into the bundle.
    if (!source || !(await fs.lstat(source).catch(() => null))?.isFile()) return null;
    const name = transcriptName(claudeSessionId);
    const bytes = await this.syncCompressed(source, path.join(this.bundleDir, name), upTo);
    await syncFolder(source.replace(/\.jsonl$/, ""), path.join(this.bundleDir, "claude", claudeSessionId));
    return { name, bytes };
  }

  /**
   * Append what claude's transcript gained to the compressed copy, or write it again whole. What
   * the copy holds is read from its members' headers (known from the last sync in this process);
   * a member a killed append left half written is cut off first, and the next append redoes it.
   */
  private async syncCompressed(source: string, plain: string, upTo?: number): Promise<number> {
    const copy = plain + GZ_SUFFIX;
    const [stat, to] = await Promise.all([fs.stat(source), fs.stat(copy).catch(() => null)]);
    const from = { size: upTo === undefined ? stat.size : Math.min(upTo, stat.size) };
    let known = to ? this.known.get(copy) : undefined;
    if (to && known?.size !== to.size) {
      known = (await readKnown(copy)) ?? undefined;
      await fs.rm(plain, { force: true }); // an old plain copy a killed sync left beside the compressed one
    }
    if (!known || known.bytes > from.size || !(await sameTail(source, known))) {
      await ensureDir(path.dirname(copy));
      this.known.delete(copy);
      await writeWhole(source, from.size, copy);
      await fs.rm(plain, { force: true }); // an old bundle's plain copy: the compressed one replaces it
      this.known.set(copy, (await readKnown(copy))!);
      return from.size;
    }
    if (known.size !== to!.size) await fs.truncate(copy, known.size); // a half-written member: cut off, appended again below
    if (known.bytes === from.size) return known.bytes;
    faultPoint("transcript-append");
    // Appending in place: a crash midway leaves a member whose length runs past the file's end;
    // the next sync (or any reader) stops before it, and the next sync cuts it off.
    const handle = await fs.open(copy, "a");
    let { size, bytes, tail } = known;
    try {
      for (; bytes < from.size;) {
        const added = await readRange(source, bytes, Math.min(from.size, bytes + MEMBER_BYTES));
        if (added.length === 0) break; // cut short meanwhile: the next sync sees it rewritten
        const [member] = await encodeMembers(bytes, added);
        await handle.write(member!.subarray(0, member!.length >> 1));
        faultPoint("transcript-append-torn");
        await handle.write(member!.subarray(member!.length >> 1));
        size += member!.length;
        bytes += added.length;
        tail = Buffer.concat([tail, added.subarray(-TAIL_CHECK)]).subarray(-TAIL_CHECK);
      }
      await handle.datasync();
    } finally {
      await handle.close();
    }
    this.known.set(copy, { size, bytes, tail });
    return bytes;
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
  await pipeline(
    createReadStream(source, { start: to.size, end: from.size - 1 }),
    createWriteStream(copy, { flags: "a" }),
  );
  const handle = await fs.open(copy, "r");
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
  return from.size;
}

/** What a compressed copy holds: its whole members' length on disk, the transcript's length, and its last bytes; null when it is not one. */
async function readKnown(copy: string): Promise<Known | null> {
  const found = await readMembers(copy).catch(() => null);
  if (!found || (found.members.length === 0 && found.size > 0)) return null;
  const tail: Buffer[] = [];
  let have = 0;
  for (let i = found.members.length - 1; i >= 0 && have < TAIL_CHECK; i--) {
    const data = await inflateMember(copy, found.members[i]!).catch(() => null);
    if (!data) return null;
    tail.unshift(data);
    have += data.length;
  }
  return { size: found.end, bytes: found.bytes, tail: Buffer.concat(tail).subarray(-TAIL_CHECK) };
}

/** Does claude's transcript still hold, where the copy ends, the bytes the copy ends with? */
async function sameTail(source: string, known: Known): Promise<boolean> {
  const start = known.bytes - known.tail.length;
  return (await readRange(source, start, known.bytes)).equals(known.tail);
}

/** The first `bytes` of claude's transcript as a new compressed copy, atomically (a member of 4 MB at a time in memory). */
async function writeWhole(source: string, bytes: number, copy: string): Promise<void> {
  await replaceAtomically(copy, async (temp) => {
    faultPoint("atomic-write");
    const handle = await fs.open(temp, "wx");
    try {
      for (let at = 0; at < bytes; at += MEMBER_BYTES) {
        for (const m of await encodeMembers(at, await readRange(source, at, Math.min(bytes, at + MEMBER_BYTES))))
          await handle.write(m);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
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
  if (!(await fs.lstat(source).catch(() => null))?.isDirectory()) return;
  try {
    entries = await fs.readdir(source, { withFileTypes: true });
  } catch {
    return; // no side folder (no subagent, no large tool result): nothing to keep
  }
  for (const entry of entries) {
    // Names come from claude's folder; only plain names are taken, never a link out of it.
    if (!/^[A-Za-z0-9._-]+$/.test(entry.name) || entry.name.startsWith("..") || claudeTempFile(entry.name)) continue;
    const from = path.join(source, entry.name);
    const to = path.join(copy, entry.name);
    if (entry.isDirectory()) await syncFolder(from, to);
    else if (entry.isFile()) await syncFile(from, to);
  }
}
