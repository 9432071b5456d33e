/**
 * The search as the CLI and the web server call it: bring the index up to date, resolve the
 * filters, query. An index SQLite finds damaged is removed and rebuilt once, then searched.
 */
import { bundleDir, bundleFiles, type Store } from "../store/store.js";
import { statfsSync } from "node:fs";
import path from "node:path";
import { DISK_FULL_HINT, UserError, errorMessage, isDiskFull } from "../base/errors.js";
import { catchUp, type CatchUpReport } from "./catch-up.js";
import { claudeOwnSessions } from "../live/claude-own-sessions.js";
import { notIndexed } from "./claude-stamp.js";
import { indexerRunning, INDEXER_CLI, startIndexer } from "./claude-indexer.js";
import { search, type SearchHit } from "./query.js";
import { parseQuery } from "./tokens.js";
import { indexFile, isDamage, openSearchDb, removeIndex, type SearchDb } from "./search-db.js";

export interface SearchRequest {
  query: string;
  /** A path (relative to the repository) or a glob of them. */
  file?: string | null;
  tool?: string | null;
  since?: Date | null;
  /** Only this session: its whole id, nudge's or claude's (resolved by the caller, as every command resolves an id). */
  session?: string | null;
  newest?: boolean;
  limit: number;
  /** claude's own sessions too: this repository's, or every project's ("all"); left out: none. */
  claude?: "repository" | "all";
  /** The hits are only shown as snippets, never masked (the terminal): less of a long text after a match is read (SearchFilters). */
  snippetOnly?: boolean;
  /** Told when the index has many sessions to catch up on before it can answer. */
  onLongCatchUp?: (sessions: number) => void;
}

/**
 * More changed sessions than this are indexed by a background process, not by the search: a few
 * sessions' new turns take a search some tens of ms, a first build of a thousand a minute or more.
 */
const INLINE_SESSIONS = 20;

export interface SearchResult {
  hits: SearchHit[];
  /** `left` > 0: that many of the store's `total` sessions are not indexed yet (the index is being built in the background). */
  catchUp: CatchUpReport;
  /** claude's own sessions not indexed yet (a background process is indexing them), and their transcripts' bytes. */
  claudeLeft: { sessions: number; bytes: number };
}

export async function searchSessions(store: Store, request: SearchRequest): Promise<SearchResult> {
  if (parseQuery(request.query).length === 0 && !request.file) {
    throw new UserError(
      "nothing to search for: the query has no letters or digits",
      'give words to search for (prefix*, "a phrase"), or --file <path>',
    );
  }
  const session = request.session ?? null;
  try {
    return await withIndex(store, (db) => run(db, store, request, session));
  } catch (error) {
    if (!isDamage(error)) throw error;
    removeIndex(indexFile(store));
    return withIndex(store, (db) => run(db, store, request, session));
  }
}

/** Bring the index up to date without searching (after a turn is saved, in the background). */
export async function updateIndex(store: Store): Promise<CatchUpReport> {
  return withIndex(store, (db) => catchUp(db, store));
}

async function withIndex<T>(store: Store, use: (db: SearchDb) => Promise<T>): Promise<T> {
  let db: SearchDb;
  try {
    db = openSearchDb(store);
  } catch (error) {
    throw fullDisk(error, indexFile(store)) ?? unopenable(error, indexFile(store));
  }
  try {
    return await use(db);
  } catch (error) {
    throw fullDisk(error, indexFile(store)) ?? error;
  } finally {
    db.close();
  }
}

/**
 * SQLite on a full disk: SQLITE_FULL ("database or disk is full") while it writes, or an I/O error
 * where it makes its WAL and shared-memory files, on a disk with (next to) no space left.
 */
function fullDisk(error: unknown, file: string): UserError | null {
  const code = (error as { code?: unknown }).code;
  const io = typeof code === "string" && code.startsWith("SQLITE_IOERR");
  if (!isDiskFull(error) && !(io && spaceLeft(path.dirname(file)) < 1024 * 1024)) return null;
  return new UserError(
    `the search index ${file} cannot be written: the disk is full (${errorMessage(error)})`,
    DISK_FULL_HINT,
  );
}

function spaceLeft(dir: string): number {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return Infinity;
  }
}

async function run(db: SearchDb, store: Store, r: SearchRequest, session: string | null): Promise<SearchResult> {
  // A running indexer is left to finish; only a nudge run from its built bundle can start one.
  const running = INDEXER_CLI !== null && indexerRunning(store);
  const inline = running ? 0 : INDEXER_CLI === null ? Infinity : INLINE_SESSIONS;
  const [report, claude] = await Promise.all([
    catchUp(db, store, r.onLongCatchUp, inline),
    r.claude ? claudeOwnSessions(store, { allProjects: r.claude === "all", cacheKnown: true }) : [],
  ]);
  // claude's own sessions, and a first build, are indexed off this path: the search answers from what is indexed, and says what is left.
  const left = notIndexed(db, claude);
  if (report.left > 0 || left.length > 0) startIndexer(store, r.claude === "all");
  const claudeLeft = { sessions: left.length, bytes: left.reduce((sum, s) => sum + s.bytes, 0) };
  const files = r.file ? await filesMatching(db, r.file) : null;
  if (files && files.length === 0) return { hits: [], catchUp: report, claudeLeft };
  const claudeSessions = claude.map((s) => s.id);
  const conversation = (id: string) => bundleFiles(bundleDir(store, id)).conversation;
  const hits = search(
    db,
    r.query,
    {
      files,
      tool: r.tool ?? null,
      since: r.since?.toISOString() ?? null,
      session,
      claudeSessions,
      newest: r.newest ?? false,
      limit: r.limit,
      snippetOnly: r.snippetOnly ?? false,
    },
    conversation,
  );
  return { hits, catchUp: report, claudeLeft };
}

/** What the file system refused (a file where the index's folder goes, a read-only store): the user's to fix. */
function unopenable(error: unknown, file: string): unknown {
  const code = (error as { code?: unknown }).code;
  if (
    typeof code !== "string" ||
    !/^(EEXIST|ENOTDIR|EACCES|EPERM|EROFS|SQLITE_(CANTOPEN|READONLY|PERM|IOERR))/.test(code)
  )
    return error;
  return new UserError(
    `cannot open the search index ${file}: ${(error as Error).message}`,
    "check that path (a file in the way, permissions, a read-only disk); NUDGE_STORE can point the store at a writable folder",
  );
}

/** The indexed paths a `--file` names: itself, or those its glob matches (a leading ./ dropped). */
async function filesMatching(db: SearchDb, file: string): Promise<string[]> {
  const wanted = file.replace(/^\.\//, "");
  // No glob character: the path itself (a glob matches whole paths), found through the paths' index, not a scan of every path.
  if (!/[*?[\]{}\\]/.test(wanted)) return [wanted];
  // Loaded only for a glob: it brings re2js (~260 KB), ~10-20 ms of every search's start otherwise.
  const { compileGlob, GlobError } = await import("../rules/glob.js");
  let matches: (path: string) => boolean;
  try {
    matches = compileGlob(wanted);
  } catch (error) {
    if (error instanceof GlobError)
      throw new UserError(`--file is not a valid glob: ${error.message}`, 'quote it, e.g. --file "src/**/*.ts"');
    throw error;
  }
  const paths = (db.prepare("SELECT DISTINCT path FROM files").all() as Array<{ path: string }>).map((r) => r.path);
  return paths.filter((p) => p === wanted || matches(p));
}

/** An absolute date or time, or a span back from now (3d, 12h, 30m, 2w). */
export function parseSince(value: string, now = Date.now()): Date {
  const span = /^(\d{1,6})([mhdw])$/.exec(value.trim());
  if (span) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[span[2] as "m" | "h" | "d" | "w"];
    return new Date(now - Number(span[1]) * unit);
  }
  const at = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?(Z|[+-]\d{2}:?\d{2})?$/.test(value.trim())
    ? Date.parse(value.trim().replace(" ", "T"))
    : NaN;
  if (Number.isNaN(at))
    throw new UserError(
      `--since is not a date: "${value}"`,
      "use 2026-05-01, 2026-05-01T12:00, or a span back from now: 3d, 12h, 30m, 2w",
    );
  return new Date(at);
}
