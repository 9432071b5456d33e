/**
 * claude's own sessions on this machine: every `<config>/projects/<folder>/<id>.jsonl` that is a
 * regular file (links are not followed), each read once into a card (claude-session-card.ts) and
 * kept in a cache keyed by (path, size, mtime) in nudge's store, so a listing costs a stat per
 * transcript. A folder whose transcripts all ran outside the repository is skipped by its cached
 * working directory: its files are not even stat'ed. Claude's folder is never written.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { readCard, type ClaudeSessionCard } from "../claude/claude-session-card.js";
import { statFolder, type EarlyStats } from "./claude-folder-stats.js";
import {
  cwdAt,
  FIELDS,
  loadCache,
  openCards,
  saveCache,
  type CachedFolder,
  type CardsFile,
  type SavedEntry,
} from "./claude-session-cache.js";

const AT_ONCE = 16;
/** A cached card's prompts are cut to this many characters: the cache stays small, and a listing shows far less. */
const PROMPT_CHARS = 1000;

/** Which working directories a listing wants: this repository's (its worktrees, its subfolders), or every one. */
export type CwdFilter = (cwd: string | null) => boolean;

export interface ClaudeSessionScan {
  /** The one used last first; at most `limit`. */
  sessions: ClaudeSessionCard[];
  /** How many are wanted, shown or not. */
  total: number;
  /** Transcripts found but not readable (removed meanwhile, not a regular file). */
  unreadable: number;
}

/**
 * A transcript as this scan has it: `old` its index in the folder's cached entry (its card in the
 * old cards file), or `card` read now. Cards are parsed only for the sessions a listing shows:
 * parsing 2,000 of them, and collecting the garbage, was most of a first screen.
 */
interface Entry {
  dir: string;
  name: string;
  size: number;
  mtimeMs: number;
  cwd: string | null;
  /** Where its card is in the old cards file (length 0: not there). */
  at: number;
  length: number;
  card: Buffer | null;
}

/** A folder as this scan has it: its cached entry kept whole (another project's: not even stat'ed), or its entries now. */
type Folder = { name: string; kept: CachedFolder } | { name: string; entries: Entry[] };

export async function scanClaudeSessions(
  configDir: string,
  cacheDir: string,
  wanted: CwdFilter,
  o: {
    limit?: number;
    /** Ids left out (nudge's already); a function: asked only if some transcript is wanted (most searches: none, ~2-3 ms saved). */
    skip?: Set<string> | (() => Promise<Set<string>>);
    early?: EarlyStats;
  } = {},
): Promise<ClaudeSessionScan> {
  const root = path.join(configDir, "projects");
  // One cache per claude folder: CLAUDE_CONFIG_DIR may name another one next time.
  const base = path.join(
    cacheDir,
    `claude-sessions-${createHash("sha256").update(configDir).digest("hex").slice(0, 16)}`,
  );
  const [cache, listed] = await Promise.all([
    loadCache(base + ".json"),
    readdir(root, { withFileTypes: true }).catch(() => []),
  ]);
  const cards = openCards(cache.cards ? path.join(path.dirname(base), cache.cards) : null);
  try {
    const folders: Folder[] = [];
    let changed = false;
    let unreadable = 0;
    // Only what sorting needs is made per transcript; a card is sliced and parsed only when shown.
    const wantedEntries: Entry[] = [];
    // A folder's transcripts ran in a few folders: each asked about once.
    const wants = new Map<string | null, boolean>();
    const dirs = listed.filter((d) => d.isDirectory());
    if (dirs.length !== Object.keys(cache.folders).length) changed = true;
    for (const folder of dirs) {
      const dir = path.join(root, folder.name);
      const known = cache.folders[folder.name];
      if (known && known.cwds.length === 1 && typeof known.cwds[0] === "string" && !wanted(known.cwds[0])) {
        // Kept as it was: the folder's transcripts are another project's.
        folders.push({ name: folder.name, kept: known });
        continue;
      }
      // The folder listed in the order the index was written in (as it is unless it changed): no lookup.
      let at: Map<string, number> | null = null;
      const indexOf = (name: string, j: number): number | undefined => {
        if (!known) return undefined;
        if (known.names[j] === name) return j;
        if (!at) {
          at = new Map();
          for (let i = 0; i < known.names.length; i++) at.set(known.names[i]!, i);
        }
        return at.get(name);
      };
      const entries: Entry[] = [];
      const missed: Entry[] = [];
      const stats = await (o.early?.get(folder.name) ?? statFolder(dir));
      unreadable += stats.unreadable;
      for (let j = 0; j < stats.names.length; j++) {
        const name = stats.names[j]!;
        const size = stats.sizes[j]!;
        const mtimeMs = stats.mtimes[j]!;
        const i = indexOf(name, j);
        const m = i === undefined ? null : known!.meta;
        const k = (i ?? 0) * FIELDS;
        // The same size and mtime, and its card in the cards file: not read again.
        const hit =
          m !== null && m[k] === size && m[k + 1] === mtimeMs && m[k + 4]! > 0 && m[k + 3]! + m[k + 4]! <= cards.size;
        const e: Entry = {
          dir,
          name,
          size,
          mtimeMs,
          cwd: hit ? cwdAt(known!, i!) : null,
          at: hit ? m[k + 3]! : 0,
          length: hit ? m[k + 4]! : 0,
          card: null,
        };
        (hit ? entries : missed).push(e);
      }
      for (let i = 0; i < missed.length; i += AT_ONCE) {
        await Promise.all(
          missed.slice(i, i + AT_ONCE).map(async (m) => {
            const card = await readCard(path.join(dir, m.name), m).catch(() => null);
            if (!card) return void unreadable++;
            const { file: _file, ...kept } = card;
            void _file;
            m.cwd = card.cwd;
            m.card = Buffer.from(
              JSON.stringify({ ...kept, firstPrompt: cut(kept.firstPrompt), lastPrompt: cut(kept.lastPrompt) }),
            );
            entries.push(m);
            changed = true;
          }),
        );
      }
      folders.push({ name: folder.name, entries });
      if (!known || known.names.length !== entries.length) changed = true;
      for (const e of entries) {
        let want = wants.get(e.cwd);
        if (want === undefined) wants.set(e.cwd, (want = wanted(e.cwd)));
        if (want) wantedEntries.push(e);
      }
    }
    if (changed) await save(base, folders, cards).catch(() => undefined);
    const skip = wantedEntries.length === 0 || !o.skip ? null : typeof o.skip === "function" ? await o.skip() : o.skip;
    const found = skip?.size
      ? wantedEntries.filter((e) => !skip.has(e.name.slice(0, -".jsonl".length)))
      : wantedEntries;
    const shown = newest(found, o.limit);
    const sessions: ClaudeSessionCard[] = [];
    for (const e of shown) {
      const card = parseCard(e.card ?? cards.read(e.at, e.length));
      if (card) sessions.push({ ...card, id: e.name.slice(0, -".jsonl".length), file: path.join(e.dir, e.name) });
    }
    return { sessions, total: found.length, unreadable };
  } finally {
    cards.close();
  }
}

/** The `limit` newest (all, without one), newest first: a screenful is picked in one pass, not by sorting 2,000. */
function newest(found: Entry[], limit: number | undefined): Entry[] {
  if (limit === undefined || limit * 8 > found.length) {
    found.sort((a, b) => b.mtimeMs - a.mtimeMs);
    return limit === undefined ? found : found.slice(0, limit);
  }
  const top: Entry[] = [];
  for (const e of found) {
    if (top.length === limit && e.mtimeMs <= top[limit - 1]!.mtimeMs) continue;
    let k = top.length === limit ? limit - 1 : top.length;
    while (k > 0 && top[k - 1]!.mtimeMs < e.mtimeMs) {
      top[k] = top[k - 1]!;
      k--;
    }
    top[k] = e;
  }
  return top;
}

function parseCard(bytes: Buffer): Omit<ClaudeSessionCard, "file"> | null {
  try {
    const card = JSON.parse(bytes.toString("utf8")) as Partial<ClaudeSessionCard> | null;
    // nudge's own file, checked as read: a damaged entry is not shown rather than shown wrong.
    return card !== null &&
      typeof card === "object" &&
      typeof card.updatedAt === "string" &&
      typeof card.startedAt === "string"
      ? (card as ClaudeSessionCard)
      : null;
  } catch {
    return null;
  }
}

/** The new index: every folder's transcripts, each card the old one (the old file read once, whole) or the one read now. */
async function save(base: string, folders: Folder[], cards: CardsFile): Promise<void> {
  const all = cards.read(0, cards.size);
  const slice = (at: number, length: number) =>
    Number.isInteger(at) && Number.isInteger(length) && at + length <= all.length
      ? all.subarray(at, at + length)
      : Buffer.alloc(0);
  const out = new Map<string, SavedEntry[]>();
  for (const f of folders) {
    if ("kept" in f) {
      const { names, meta } = f.kept;
      out.set(
        f.name,
        names.map((name, i) => ({
          name,
          size: meta[i * FIELDS]!,
          mtimeMs: meta[i * FIELDS + 1]!,
          cwd: cwdAt(f.kept, i),
          card: slice(meta[i * FIELDS + 3]!, meta[i * FIELDS + 4]!),
        })),
      );
    } else
      out.set(
        f.name,
        f.entries.map((e) => ({ ...e, card: e.card ?? slice(e.at, e.length) })),
      );
  }
  await saveCache(base, out);
}

function cut(text: string | null): string | null {
  return text !== null && text.length > PROMPT_CHARS ? text.slice(0, PROMPT_CHARS) : text;
}

/** Is `cwd` one of these folders, or inside one? */
export function insideAny(roots: string[]): CwdFilter {
  return (cwd) =>
    cwd !== null && roots.some((r) => cwd === r || cwd.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
}

/** The work trees of a repository: the main one and every linked worktree git knows (read from the common git dir, no git process). */
export async function workTreesOf(repoRoot: string, commonDir: string): Promise<string[]> {
  const roots = new Set([repoRoot]);
  if (path.basename(commonDir) === ".git") roots.add(path.dirname(commonDir));
  const dir = path.join(commonDir, "worktrees");
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const gitdir = (await readFile(path.join(dir, name, "gitdir"), "utf8").catch(() => "")).trim();
    if (gitdir && path.isAbsolute(gitdir)) roots.add(path.dirname(gitdir));
  }
  return [...roots];
}
