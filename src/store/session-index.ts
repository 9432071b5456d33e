/**
 * The session index: `<store>/sessions-index.txt`, every session's header as it was when last
 * read, so that a store of thousands of sessions is listed without reading thousands of files.
 * It is a cache, never trusted over the bundles: each entry carries the identity of the
 * manifest.json it was read from (inode, size, modification and change times), and for a session
 * not marked complete its journal's too, and is used only while those are unchanged; a session that is not in it is read from its bundle, and one it
 * has but the store no longer holds is dropped. A missing or damaged index is rebuilt.
 *
 * Format: a first line `nudge sessions index 3 TAB <sessions folder identity> TAB <sessions> TAB
 * <where the headers start>`; a line per session folder, `<id> TAB <manifest identity> TAB
 * <createdAt> TAB <state> TAB <header length>`, first the folders that could not be read (their
 * other fields `-`, so that a listing says so again), then the others newest first; an empty
 * line; then the headers as JSON, one after another in the same order.
 *
 * The first screen of `session list` reads only the head of the file: when the sessions folder
 * itself is unchanged since the index was written (no session added or removed: its identity is
 * taken before it is read, and only once it is two seconds old, as a folder changed again within
 * the same clock tick would look unchanged), the newest sessions are the first lines, and only
 * their manifests are checked (a session's start time, by which they are sorted, never changes).
 * Anything found changed there, and every other scan, checks the whole store.
 *
 * Writes replace the file whole (temp file and rename), so a reader never sees a mix; two nudges
 * writing at once each write an index of what they checked, and the last rename wins. A kill
 * before the rename leaves the old index (and a temp file that housekeeping removes).
 */
import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, promises as fs, openSync, readFileSync, readSync, statSync } from "node:fs";
import path from "node:path";
import { openCacheFile } from "../base/cache-file.js";
import { faultPoint } from "../base/fault-injection.js";
import { ManifestHeaderSchema, type ManifestHeader } from "./manifest-schema.js";
import { quickParse } from "../base/zod-accept.js";

const INDEX_FILE = "sessions-index.txt";
const MAGIC = "nudge sessions index 3";
/** Headers read at once from bundles when the index lacks them (the first listing of a big store). */
const READ_CONCURRENCY = 16;
/** A folder changed less than this long ago may change again within the same timestamp. */
const RACY_MS = 2_000;
/** What the first screen reads of the index: its first lines and their headers. */
const HEAD_BYTES = 64 * 1024;
/** A start-up that had to read more headers than this from bundles writes the index (a listing always does). */
const START_WRITE_AFTER = 32;

interface Entry {
  id: string;
  /** The identity of the manifest.json the header was read from ("-": unreadable). */
  key: string;
  createdAt: string;
  state: string;
  /** The header as JSON, decoded and parsed only when the session is used (empty: not indexable). */
  bytes: Buffer;
  header?: ManifestHeader;
  /** Where in the index file the header is, when it was not read yet (and its length). */
  at?: number;
  length?: number;
}

/** How a session's header is read from its bundle (throws, with the reason, for an unreadable one). */
export type ReadHeader = (id: string) => Promise<ManifestHeader>;

interface IndexedHeader {
  id: string;
  header: ManifestHeader;
}

export interface IndexScan {
  /** The sessions wanted, newest first (by start time). */
  sessions: IndexedHeader[];
  /** How many readable sessions the store holds (all of them, not only those wanted). */
  total: number;
}

/** The identity of a manifest.json: any rewrite (always a new file renamed over it) changes it. */
function fileKey(file: string): string | null {
  // Not bigint: thousands of those cost more than the stat calls; the milliseconds keep microseconds.
  const s = statSync(file, { throwIfNoEntry: false });
  return s ? `${s.ino}-${s.size}-${s.mtimeMs}-${s.ctimeMs}` : null;
}

/**
 * What an entry's header was read from: the manifest, and for a session not marked complete its
 * journal too, whose turns count in its listed header (a kill between a turn's record and the
 * header's write leaves the header a turn behind; see store.ts). A complete session's header was
 * written after its last turn: its journal is not looked at.
 */
function entryKey(dir: string, state: string | null): string | null {
  const manifest = fileKey(path.join(dir, "manifest.json"));
  if (manifest === null || state === "complete") return manifest;
  const journal = statSync(path.join(dir, "turns.jsonl"), { throwIfNoEntry: false });
  return `${manifest}+${journal ? `${journal.size}-${journal.mtimeMs}` : "none"}`;
}

/** The key an entry read as `header` keeps: without its journal's part once complete. */
const keptKey = (key: string, header: ManifestHeader) => (header.state === "complete" ? key.split("+")[0]! : key);

/** The sessions folder's identity, or "-" while it is too fresh to tell a later change by. */
function folderKey(dir: string): string {
  const s = statSync(dir, { bigint: true, throwIfNoEntry: false });
  if (
    !s ||
    Date.now() - Number(s.mtimeNs / 1_000_000n) < RACY_MS ||
    Date.now() - Number(s.ctimeNs / 1_000_000n) < RACY_MS
  )
    return "-";
  return `${s.ino}-${s.mtimeNs}-${s.ctimeNs}`;
}

interface StoredIndex {
  folder: string;
  total: number;
  /** The file, or its first bytes (then `whole` is false). */
  buf: Buffer;
  whole: boolean;
  /** Where the next unparsed line starts, and where its header does (in the file). */
  line: number;
  header: number;
  /** Where the lines end. */
  end: number;
  /** The file's identity when read: the rest of it is read only from the same file. */
  file: string;
}

/**
 * The index: all of it, its head (the first screen's lines and headers), or its lines without the
 * headers; null if missing or not one this nudge writes.
 */
function openIndex(file: string, part: "whole" | "head" | "lines"): StoredIndex | null {
  let buf: Buffer;
  let identity = "";
  // A cache: anything but a file in its place (a FIFO would block the listing for good) is none.
  const fd = openCacheFile(file);
  if (fd === null) return null;
  try {
    if (part === "whole") buf = readFileSync(fd);
    else {
      identity = fdKey(fd);
      buf = readAt(fd, 0, HEAD_BYTES);
      const headers = /^[^\n]*\t(\d+)\n/.exec(buf.toString("latin1", 0, Math.min(buf.length, 512)))?.[1];
      // Never more than the file holds, whatever a damaged first line says.
      if (part === "lines" && headers && Number(headers) > buf.length)
        buf = readAt(fd, 0, Math.min(Number(headers), fstatSync(fd).size));
    }
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
  const first = buf.indexOf(10);
  if (first === -1) return null;
  const [magic, folder, total, headers, extra] = buf.toString("utf8", 0, first).split("\t");
  if (magic !== MAGIC || extra !== undefined || !/^\d+$/.test(total ?? "") || !/^\d+$/.test(headers ?? "")) return null;
  return {
    folder: folder!,
    total: Number(total),
    buf,
    whole: part === "whole",
    line: first + 1,
    header: Number(headers),
    end: Number(headers) - 1,
    file: identity,
  };
}

function fdKey(fd: number): string {
  const s = fstatSync(fd);
  return `${s.ino}-${s.size}-${s.mtimeMs}-${s.ctimeMs}`;
}

function readAt(fd: number, at: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  return buf.subarray(0, readSync(fd, buf, 0, length, at));
}

/**
 * The next entry of an index; null at its end; undefined for a line this nudge did not write, or
 * one past the bytes read (the whole index is then read, and rebuilt if damaged). An entry's
 * header is left to read (`bytes` empty, `at` where it is) when only the head of the index was.
 */
function nextEntry(index: StoredIndex): Entry | null | undefined {
  if (index.line >= index.end) return index.line === index.end ? null : undefined;
  const eol = index.buf.indexOf(10, index.line);
  if (eol === -1 || eol > index.end) return undefined;
  const [id, key, createdAt, state, length, extra] = index.buf.toString("utf8", index.line, eol).split("\t");
  const from = index.header;
  const to = from + Number(length);
  if (extra !== undefined || state === undefined || !id || !(to >= from)) return undefined;
  index.line = eol + 1;
  index.header = to;
  if (to <= index.buf.length)
    return { id, key: key!, createdAt: createdAt!, state, bytes: index.buf.subarray(from, to) };
  // A header cut short (a damaged file) is no entry.
  return index.whole
    ? undefined
    : { id, key: key!, createdAt: createdAt!, state, bytes: Buffer.alloc(0), at: from, length: to - from };
}

/** Read the headers of entries from the index file, in one read (they follow one another); false if it was replaced since. */
function readHeaders(file: string, index: StoredIndex, entries: Entry[]): boolean {
  const missing = entries.filter((e) => e.at !== undefined);
  if (missing.length === 0) return true;
  const from = missing[0]!.at!;
  const lengths = missing.map((e) => e.length!);
  const to = missing.at(-1)!.at! + lengths.at(-1)!;
  const buf = Buffer.allocUnsafe(to - from);
  try {
    const fd = openSync(file, "r");
    try {
      if (fdKey(fd) !== index.file || readSync(fd, buf, 0, buf.length, from) !== buf.length) return false;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
  missing.forEach((e, i) => {
    e.bytes = buf.subarray(e.at! - from, e.at! - from + lengths[i]!);
    e.at = undefined;
  });
  return true;
}

const newerFirst = (a: Entry, b: Entry) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0);

/** Replace the index whole; best effort (a read-only store is still listed, only slower). */
async function writeIndex(file: string, folder: string, entries: Entry[]): Promise<void> {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  const unreadable = entries.filter((e) => e.key === "-");
  const readable = entries.filter((e) => e.key !== "-" && e.bytes.length > 0).sort(newerFirst);
  let lines = "";
  for (const e of [...unreadable, ...readable])
    lines += `${e.id}\t${e.key}\t${e.createdAt}\t${e.state}\t${e.bytes.length}\n`;
  const body = Buffer.from(lines + "\n");
  // The first line says where the headers start, so that the first screen reads only the head of the file.
  let first = "";
  for (let guess = 0; ;) {
    first = `${MAGIC}\t${folder}\t${readable.length}\t${guess}\n`;
    const at = Buffer.byteLength(first) + body.length;
    if (at === guess) break;
    guess = at;
  }
  const data = Buffer.concat([Buffer.from(first), body, ...readable.map((e) => e.bytes)]);
  try {
    // Not synced: an index lost in a crash is rebuilt, and a sync per listing would cost more than it saves.
    const handle = await fs.open(temp, "wx");
    try {
      await handle.writeFile(data.subarray(0, data.length >> 1));
      faultPoint("session-index");
      await handle.writeFile(data.subarray(data.length >> 1));
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch {
    await fs.rm(temp, { force: true }).catch(() => undefined);
  }
}

/** A folder name that fits on an index line (one named otherwise is always read from its bundle). */
const indexable = (id: string) => !/[\t\n\r]/.test(id);

/** The session folders: their names (a dot-folder is one still being built or removed). */
export async function sessionFolders(sessionsDir: string): Promise<string[]> {
  try {
    return (await fs.readdir(sessionsDir)).filter((name) => !name.startsWith("."));
  } catch {
    return [];
  }
}

export class SessionIndex {
  private readonly file: string;

  constructor(
    storeDir: string,
    private readonly sessionsDir: string,
    private readonly read: ReadHeader,
    private readonly onSkip: (id: string, why: string) => void,
  ) {
    this.file = path.join(storeDir, INDEX_FILE);
  }

  /**
   * The newest `limit` sessions (all without one), or those whose header's state `where` takes
   * (every session checked: a header's state changes).
   */
  async scan(o: { limit?: number; where?: (state: string) => boolean }): Promise<IndexScan> {
    const folder = folderKey(this.sessionsDir);
    if (o.limit !== undefined && !o.where && folder !== "-") {
      // The head of the index holds the first screen's lines and headers (a bigger screen may need more: then all of it is read).
      const head = openIndex(this.file, "head");
      const quick = head && head.folder === folder ? await this.firstLines(head, o.limit) : null;
      if (quick) return quick;
    }
    // A scan for some sessions only (the start-up's) reads the index's lines, and their headers from their bundles.
    return this.full(folder, openIndex(this.file, o.where ? "lines" : "whole"), o);
  }

  /** The first screen from the first lines of an index of an unchanged folder; null if anything in them changed. */
  private async firstLines(index: StoredIndex, limit: number): Promise<IndexScan | null> {
    const sessions: IndexedHeader[] = [];
    const skipped: [string, string][] = [];
    const shown: Entry[] = [];
    for (let e = nextEntry(index); e !== null && shown.length < limit; e = nextEntry(index)) {
      if (e === undefined) return null;
      if (e.key === "-") {
        // Still unreadable: said again. Readable now: the full scan indexes it.
        const why = await this.read(e.id).then(
          () => null,
          (error: Error) => error.message,
        );
        if (why === null) return null;
        skipped.push([e.id, why]);
        continue;
      }
      if (entryKey(path.join(this.sessionsDir, e.id), e.state) !== e.key) return null;
      shown.push(e);
    }
    if (!readHeaders(this.file, index, shown)) return null;
    for (const e of shown) {
      const header = parseHeader(e);
      if (!header) return null;
      sessions.push({ id: e.id, header });
    }
    for (const [id, why] of skipped) this.onSkip(id, why);
    return { sessions, total: index.total };
  }

  /**
   * Every session folder checked against its bundle, the headers that changed read again, and the
   * index rewritten if anything changed (by a scan for some sessions only, when many had).
   */
  private async full(
    folder: string,
    index: StoredIndex | null,
    o: { limit?: number; where?: (state: string) => boolean },
  ): Promise<IndexScan> {
    const stored: Entry[] = [];
    let last: Entry | null | undefined = null;
    if (index) for (last = nextEntry(index); last; last = nextEntry(index)) stored.push(last);
    const intact = index !== null && last === null; // undefined: it stopped at a damaged line
    const ids = new Set(await sessionFolders(this.sessionsDir));
    const entries: Entry[] = [];
    const unread: { id: string; key: string | null }[] = [];
    // In the index's order (newest first), so that sorting what is mostly sorted costs little.
    for (const old of stored) {
      if (!ids.delete(old.id)) continue; // gone from the store
      const key = entryKey(path.join(this.sessionsDir, old.id), old.state);
      if (old.key !== "-" && old.key === key) entries.push(old);
      else unread.push({ id: old.id, key: entryKey(path.join(this.sessionsDir, old.id), null) });
    }
    const gone = stored.length !== entries.length + unread.length;
    for (const id of ids) unread.push({ id, key: entryKey(path.join(this.sessionsDir, id), null) });
    entries.push(...(await this.readAll(unread)));
    const readable = entries.filter((e) => e.key !== "-");
    const wanted = readable.filter((e) => !o.where || o.where(e.state)).sort(newerFirst);
    const sessions: IndexedHeader[] = [];
    let damaged = false;
    for (const e of wanted) {
      if (sessions.length === (o.limit ?? Infinity)) break;
      let header = parseHeader(e);
      if (!header) {
        // Not read with the lines, or not parsing as its bundle's would: read from the bundle (and indexed anew if damaged).
        damaged ||= e.at === undefined;
        const [again] = await this.readAll([{ id: e.id, key: e.key }]);
        entries[entries.indexOf(e)] = again!;
        header = again!.header ?? null;
      }
      if (header) sessions.push({ id: e.id, header });
    }
    const changed = !intact || gone || damaged || unread.length > 0 || index!.folder !== folder;
    const write = o.where ? !intact || unread.length > START_WRITE_AFTER : changed;
    // An empty store gets no index file until it has a session.
    if (write && (index !== null || entries.length > 0))
      await writeIndex(this.file, folder, index?.whole ? entries : this.withHeaders(entries));
    return { sessions, total: readable.length };
  }

  /** Entries whose headers were not read (only the index's lines were) get them from the whole index, or are left out of it. */
  private withHeaders(entries: Entry[]): Entry[] {
    const whole = new Map<string, Entry>();
    const index = openIndex(this.file, "whole");
    for (let e = index && nextEntry(index); e; e = nextEntry(index!)) whole.set(e.id, e);
    return entries.flatMap((e) => {
      if (e.at === undefined) return [e];
      const found = whole.get(e.id);
      return found && found.key === e.key ? [found] : [];
    });
  }

  /** Read sessions' headers from their bundles, a few at a time; an unreadable one is said (and kept as such). */
  private async readAll(items: { id: string; key: string | null }[]): Promise<Entry[]> {
    const out: Entry[] = [];
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const { id, key } = items[next++]!;
        // The identity was taken before the read: a header rewritten meanwhile is read again next time.
        const header = await this.readOne(id);
        if (!header) out.push({ id, key: "-", createdAt: "-", state: "-", bytes: Buffer.alloc(0) });
        else
          out.push({
            id,
            key: key ? keptKey(key, header) : "",
            createdAt: header.createdAt,
            state: header.state,
            header,
            bytes: key && indexable(id) ? Buffer.from(JSON.stringify(header)) : Buffer.alloc(0),
          });
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, items.length) }, worker));
    return out;
  }

  private async readOne(id: string): Promise<ManifestHeader | null> {
    try {
      return await this.read(id);
    } catch (error) {
      this.onSkip(id, (error as Error).message);
      return null;
    }
  }
}

/** An entry's header: read from its bundle, or parsed from the index and checked as a bundle's would be. */
function parseHeader(e: Entry): ManifestHeader | null {
  if (e.header) return e.header;
  try {
    const parsed = quickParse(ManifestHeaderSchema, JSON.parse(e.bytes.toString("utf8")));
    if (parsed.success && parsed.data.createdAt === e.createdAt && parsed.data.state === e.state)
      return (e.header = parsed.data);
  } catch {
    // damaged: read from the bundle
  }
  return null;
}
