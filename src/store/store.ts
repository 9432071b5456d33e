/**
 * Where bundles live: `<git common dir>/nudge/` (never committed, shared by all worktrees), or
 * `$NUDGE_STORE` when set. One folder per session under `sessions/`.
 */
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { visibleLine } from "../base/inert-text.js";
import { repoLocation } from "../snapshot/repo-location.js";
import { bundleDir, type Store } from "./store-location.js";
import { writeFileAtomic } from "./atomic-write.js";
import { readBundleFile } from "./bundle-links.js";
import { ManifestHeaderSchema, type Manifest, type ManifestHeader } from "./manifest-schema.js";
import { fromFormat1 } from "./manifest-v1.js";
import { summaryOf } from "./summary.js";
import { activityOf, isHeld, isLocked, readLock, type LockInfo } from "./locks.js";
import { closingAfterClaude } from "./hook-locks.js";
import { quickParse } from "../base/zod-accept.js";
import { foldJournal, journalOf, parseJournal } from "./turn-journal.js";
import { SessionIndex, sessionFolders } from "./session-index.js";
import { noteSessionChanged } from "./change-log.js";

export { bundleDir, openStore, type Store } from "./store-location.js";

/** The files of one bundle; docs/reference/bundle-format.md describes each. */
export function bundleFiles(dir: string) {
  return {
    dir,
    manifest: path.join(dir, "manifest.json"),
    journal: path.join(dir, "turns.jsonl"),
    conversation: path.join(dir, "conversation.jsonl"),
    timing: path.join(dir, "timing.txt"),
    input: path.join(dir, "input.jsonl"),
    inputTiming: path.join(dir, "input-timing.txt"),
    stderr: path.join(dir, "claude-stderr.log"),
    changes: path.join(dir, "changes"),
    transcripts: path.join(dir, "claude"),
    /** A loop's raw NDJSON per iteration (copies of conversation.jsonl's lines; kept here only). */
    iterations: path.join(dir, "iterations"),
    lock: path.join(dir, "lock"),
    /** The settings `claude run --tui` gives claude (its hooks), there while that claude runs. */
    claudeUiSettings: path.join(dir, "claude-ui-hooks.json"),
  };
}
export type BundleFiles = ReturnType<typeof bundleFiles>;

export function patchName(n: number, kind: "turn" | "edits" = "turn"): string {
  return `changes/${kind}-${String(n).padStart(3, "0")}.patch`;
}

export function newSessionId(): string {
  return randomBytes(5).toString("hex"); // 10 hex chars: short to type, unique per repo in practice
}

async function readJson(file: string, dir: string): Promise<unknown> {
  let raw: string;
  try {
    raw = await readBundleFile(file, "utf8");
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`no session bundle at ${dir}`, "list the sessions with: nudge session list");
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new UserError(
      `${file} is not valid JSON`,
      "the bundle is damaged; restore it from an export if you have one",
    );
  }
}

function checkHeader(json: unknown, file: string): ManifestHeader {
  const parsed = quickParse(ManifestHeaderSchema, json);
  if (parsed.success) return parsed.data;
  const format = (json as { format?: unknown } | null)?.format;
  if (typeof format === "number" && format > 2) {
    throw new UserError(
      `${file} is in bundle format ${format}, newer than this nudge reads`,
      "update nudge to read this session",
    );
  }
  const issue = parsed.error.issues[0];
  throw new UserError(
    `${file} does not match the bundle format: ${issue?.path.join(".")}: ${issue?.message}`,
    "the bundle was written by another nudge version or damaged",
  );
}

/** The header alone: what `session list` needs, the same cost however long the session is. */
export async function readHeader(dir: string): Promise<ManifestHeader> {
  const file = bundleFiles(dir).manifest;
  const json = await readJson(file, dir);
  const old = fromFormat1(json);
  return old ? headerOf(old) : checkHeader(json, file);
}

/** What a version-2 bundle's journal holds, read without judging it (`session repair` starts here). */
export interface JournalState {
  header: ManifestHeader;
  /** The journal's bytes up to its last complete line (a torn last line is not part of it). */
  text: string;
  missing: boolean;
  folded: Pick<Manifest, "turns" | "unsaved">;
  /** Saved turns after the starting state; fewer than the header counts means the journal was damaged. */
  saved: number;
}

/** The header and the journal of a bundle in format 2 (null for a format-1 bundle, which has no journal). */
export async function readJournalState(dir: string): Promise<JournalState | null> {
  const files = bundleFiles(dir);
  const json = await readJson(files.manifest, dir);
  if (fromFormat1(json)) return null;
  const header = checkHeader(json, files.manifest);
  let missing = false;
  const raw = await readBundleFile(files.journal, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
    missing = true;
    return "";
  });
  const folded = foldJournal(parseJournal(raw, files.journal));
  const text = raw.slice(0, raw.lastIndexOf("\n") + 1);
  return { header, text, missing, folded, saved: folded.turns.filter((t) => t.n > 0).length };
}

/** How a journal with fewer turns than its header counts is described, to a person. */
export function journalDamage(state: JournalState): string {
  const { saved } = state;
  return state.missing
    ? "is missing"
    : state.text.trim() === ""
      ? "is empty"
      : `holds ${saved} turn${saved === 1 ? "" : "s"}`;
}

/** The whole session: the header and its turn journal. */
export async function readManifest(dir: string): Promise<Manifest> {
  const state = await readJournalState(dir);
  if (!state) return fromFormat1(await readJson(bundleFiles(dir).manifest, dir))!;
  const { header } = state;
  // The header is written after the journal, so it never counts a turn the journal lacks, unless the
  // journal was damaged: going on would record turn 1 again over the old one and repoint the session's ref.
  if (state.saved < header.summary.turns) {
    throw new UserError(
      `session ${header.id}'s turn journal ${bundleFiles(dir).journal} ${journalDamage(state)}, but its manifest counts ${header.summary.turns} turn${header.summary.turns === 1 ? "" : "s"}: it was damaged`,
      `nothing was changed; rebuild it from the session's snapshots and logs: nudge session repair ${header.id} (--dry-run shows what it would write)`,
    );
  }
  return { ...journalCounted(header, state.folded.turns), ...state.folded };
}

/**
 * The header with its summary as the journal's turns make it, where the journal holds more: a
 * kill between a turn's record and the header's write leaves the header a turn behind.
 */
function journalCounted(header: ManifestHeader, turns: Manifest["turns"]): ManifestHeader {
  return turns.filter((t) => t.n > 0).length > header.summary.turns ? { ...header, summary: summaryOf(turns) } : header;
}

/**
 * For a listing: the header of a session not marked complete (recording, or cut off), counted
 * from its journal; a complete one's header was written after its last turn. A journal that
 * cannot be read leaves the header as it is (reading the session says what is wrong).
 */
async function listedHeader(dir: string, header: ManifestHeader): Promise<ManifestHeader> {
  if (header.state === "complete") return header;
  const file = bundleFiles(dir).journal;
  const raw = await readBundleFile(file, "utf8").catch(() => null);
  if (raw === null) return header;
  try {
    return journalCounted(header, foldJournal(parseJournal(raw, file)).turns);
  } catch {
    return header;
  }
}

export function headerOf(manifest: Manifest): ManifestHeader {
  const { turns: _turns, unsaved: _unsaved, ...header } = manifest;
  return header;
}

export async function writeHeader(dir: string, header: ManifestHeader): Promise<void> {
  const checked = ManifestHeaderSchema.parse(header); // never write a header a reader would reject
  await writeFileAtomic(bundleFiles(dir).manifest, JSON.stringify(checked, null, 2) + "\n");
  noteSessionChanged(dir);
}

/**
 * Write a whole bundle's bookkeeping afresh (a fork, an import, a format-1 bundle migrated): the
 * journal first, then the header, each atomically, so a crash between leaves the old header, which
 * still reads as it did.
 */
export async function writeBundle(dir: string, manifest: Manifest): Promise<void> {
  const records = journalOf(manifest.turns, manifest.unsaved);
  await writeFileAtomic(bundleFiles(dir).journal, records.map((r) => JSON.stringify(r) + "\n").join(""));
  noteSessionChanged(dir);
  await writeHeader(dir, headerOf(manifest));
}

/** Change header fields of a session that is not being recorded (a rewind, a fork point). */
export async function updateHeader(dir: string, fields: Partial<ManifestHeader>): Promise<void> {
  await writeHeader(dir, { ...(await readHeader(dir)), ...fields, updatedAt: new Date().toISOString() });
}

export type SessionState = "recording" | "complete" | "crashed";

export interface StoredSession {
  dir: string;
  manifest: Manifest;
  state: SessionState;
}

/** A session as a listing sees it: the header only. */
export interface ListedSession {
  dir: string;
  header: ManifestHeader;
  state: SessionState;
}

/** "recording" in a header whose lock holder is gone means nudge or the machine died mid-session. */
export async function sessionState(dir: string, header: ManifestHeader): Promise<SessionState> {
  if (header.state === "complete") return "complete";
  if (await isLocked(bundleFiles(dir).lock)) return "recording";
  if (await closingAfterClaude(dir)) return "recording";
  // Closed meanwhile (its closing process ended after `header` was read, lock and notes gone): not cut off.
  const now = await readHeader(dir).catch(() => null);
  return now && (now.state !== header.state || now.updatedAt !== header.updatedAt) ? "recording" : "crashed";
}

/**
 * A session whose code lives in another repository (this store was copied with its repository,
 * `cp -a repo repo-copy`) must not be resumed, rewound or forked from here: its recorded work tree
 * is the original's, so claude would run there and snapshots would land in the wrong object store.
 * One git process, only when the session's work tree is not this one (a worktree fork's is).
 */
export async function requireOwnRepository(store: Store, manifest: Manifest): Promise<void> {
  const root = manifest.repo.root;
  if (root === store.repoRoot || !existsSync(root)) return; // gone: the callers say so themselves
  const there = await repoLocation(root).catch(() => null);
  if (there && path.resolve(there.commonDir) === path.resolve(store.commonDir)) return;
  throw new UserError(
    `session ${manifest.id} was recorded in ${root}, which is not a work tree of this repository (${store.repoRoot}: a copy of it?)`,
    `work with it there: cd ${root}; nothing was changed`,
  );
}

export async function loadSession(store: Store, id: string): Promise<StoredSession> {
  const dir = bundleDir(store, id);
  const manifest = await readManifest(dir);
  return { dir, manifest, state: await sessionState(dir, manifest) };
}

/** The ids of the stored sessions: their folder names (a dot-folder is one still being built). */
export async function sessionIds(store: Store): Promise<string[]> {
  return sessionFolders(path.join(store.dir, "sessions"));
}

/** A session that has a lock file, and what the lock says (null: unreadable). */
export interface SessionLock {
  id: string;
  lock: LockInfo | null;
}

/**
 * The sessions that have a lock file, each lock read once. Nearly every session has none (one
 * exists only while a nudge works on it, or after a crash): which ones do is asked with one
 * synchronous stat each (about 2 µs; no error made for a missing file). Reading every lock
 * instead (an open that fails, through the thread pool and a promise) cost a rewind or fork
 * 240 ms in a store of 5,000 sessions; this costs it about 10 ms.
 */
export async function sessionLocks(store: Store): Promise<SessionLock[]> {
  const sessions = path.join(store.dir, "sessions");
  const withLock = (await sessionIds(store)).filter(
    (id) => statSync(`${sessions}${path.sep}${id}${path.sep}lock`, { throwIfNoEntry: false }) !== undefined,
  );
  return Promise.all(
    withLock.map(async (id) => ({ id, lock: await readLock(bundleFiles(bundleDir(store, id)).lock) })),
  );
}

/** Of those, the sessions whose lock a live nudge process holds (recording it, or removing, exporting… it). */
export function heldLocks(locks: SessionLock[]): Map<string, LockInfo> {
  return new Map(locks.flatMap(({ id, lock }) => (lock && isHeld(lock) ? [[id, lock] as const] : [])));
}

/** A session whose claude may be changing files right now. */
export interface LiveClaude {
  id: string;
  /** The work tree its claude works in. */
  root: string;
  /** null: a nudge is recording it; a pid: the claude a dead nudge left running (kill -9, a crash). */
  orphanPid: number | null;
  /** Recorded from claude's own UI (installed hooks, or `claude run --tui`): claude's commands are claude's there, not nudge's. */
  claudeUi: boolean;
}

/**
 * Sessions with a claude that may be writing files: recorded now, or orphaned by a nudge that
 * died. Only the headers of sessions whose lock says so are read.
 */
export async function liveClaudes(store: Store, locks?: SessionLock[]): Promise<LiveClaude[]> {
  const found = await Promise.all(
    (locks ?? (await sessionLocks(store))).map(async ({ id, lock }): Promise<LiveClaude | null> => {
      const activity = activityOf(lock);
      if (!activity) return null;
      const header = await readHeader(bundleDir(store, id)).catch(() => null);
      if (!header) return null;
      const claudeUi =
        (lock?.what ?? "").endsWith("through claude's hooks") ||
        existsSync(bundleFiles(bundleDir(store, id)).claudeUiSettings);
      if (activity !== "recording") return { id, root: header.repo.root, orphanPid: activity.orphanPid, claudeUi };
      return header.state === "recording" ? { id, root: header.repo.root, orphanPid: null, claudeUi } : null;
    }),
  );
  return found.filter((s) => s !== null);
}

/** Every readable session's header, the newest first; unreadable folders are reported through `onSkip`. */
export async function listSessions(
  store: Store,
  onSkip?: (dir: string, why: string) => void,
): Promise<ListedSession[]> {
  return (await scanSessions(store, { onSkip })).sessions;
}

export interface SessionScan {
  /** Newest first (by start time). */
  sessions: ListedSession[];
  /** How many readable sessions the store holds, shown or not. */
  total: number;
}

/**
 * Sessions' headers through the session index (session-index.ts): only headers that changed
 * since are read from their bundles. `limit`: only the newest this many; `unfinished`: only
 * sessions whose header is not "complete" (recording, or crashed).
 */
export async function scanSessions(
  store: Store,
  o: { limit?: number; unfinished?: boolean; onSkip?: (dir: string, why: string) => void } = {},
): Promise<SessionScan> {
  const sessions = path.join(store.dir, "sessions");
  const index = new SessionIndex(
    store.dir,
    sessions,
    // What a listing shows of a session: its header, counted from its journal where that is behind (cached as read).
    async (id) => listedHeader(path.join(sessions, id), await readHeader(path.join(sessions, id))),
    (id, why) => o.onSkip?.(bundleDir(store, id), why),
  );
  const scan = await index.scan({ limit: o.limit, where: o.unfinished ? (state) => state !== "complete" : undefined });
  const listed = await Promise.all(
    scan.sessions.map(async ({ id, header }) => {
      const dir = bundleDir(store, id);
      return { dir, header, state: await sessionState(dir, header) };
    }),
  );
  return { sessions: listed, total: scan.total };
}

/** A full id or a unique prefix of one. Matched on folder names: only the match is read. */
export async function resolveSession(store: Store, idOrPrefix: string): Promise<StoredSession> {
  return loadSession(store, await resolveId(store, idOrPrefix));
}

export async function resolveId(store: Store, idOrPrefix: string): Promise<string> {
  if (idOrPrefix.trim() === "")
    throw new UserError("no session id given", "list the sessions with: nudge session list");
  const ids = await sessionIds(store);
  const matches = ids.includes(idOrPrefix) ? [idOrPrefix] : ids.filter((id) => id.startsWith(idOrPrefix));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0)
    throw new NoSuchSession(
      `no session matches "${visibleLine(idOrPrefix)}"`,
      "list the sessions with: nudge session list",
      [],
    );
  const some = matches.sort().slice(0, 8);
  throw new NoSuchSession(`"${visibleLine(idOrPrefix)}" is ambiguous: ${some.join(", ")}`, "type more of the id", some);
}

/** An id or prefix that names no one session: `matches` are the sessions it begins (none, or several). */
export class NoSuchSession extends UserError {
  constructor(
    message: string,
    hint: string,
    readonly matches: string[],
  ) {
    super(message, hint);
  }
}
