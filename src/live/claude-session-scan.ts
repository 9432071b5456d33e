/**
 * claude's own sessions on this machine: every `<config>/projects/<folder>/<id>.jsonl` that is a
 * regular file (links are not followed), each read once into a card (claude-session-card.ts) and
 * kept in a cache keyed by (path, size, mtime) in nudge's store, so a listing costs a stat per
 * transcript. A folder whose transcripts all ran outside the repository is skipped by its cached
 * working directory: its files are not even stat'ed. Claude's folder is never written.
 */
import { createHash, randomBytes } from "node:crypto";
import { statSync, type Dirent } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { ensureDir, writeFileAtomic } from "../store/atomic-write.js";
import { readCard, type ClaudeSessionCard } from "../claude/claude-session-card.js";

const CACHE_VERSION = 4;
const AT_ONCE = 16;
/** A cached card's prompts are cut to this many characters: the cache stays small, and a listing shows far less. */
const PROMPT_CHARS = 1000;

/**
 * A transcript as cached: its identity (size, mtime), where it ran (an index into its folder's
 * `cwds`), and where its card's JSON is in the cards file. Cards are parsed only for the sessions
 * a listing shows: parsing 2,000 of them, and collecting the garbage, was most of a first screen.
 */
type Cached = [size: number, mtimeMs: number, cwd: number, at: number, length: number];
interface CachedFolder {
  cwds: Array<string | null>;
  files: Record<string, Cached>;
}
interface Cache {
  version: number;
  /** The cards file this index points into (a new one with each write: an older index keeps its own). */
  cards: string;
  folders: Record<string, CachedFolder>;
}

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

/** A folder's transcript as this scan has it: its entry in the old cache (its card in the old cards file), or a card read now. */
type Entry = Cached | { size: number; mtimeMs: number; cwd: string | null; card: Buffer };

export async function scanClaudeSessions(
  configDir: string,
  cacheDir: string,
  wanted: CwdFilter,
  o: { limit?: number; skip?: Set<string> } = {},
): Promise<ClaudeSessionScan> {
  const root = path.join(configDir, "projects");
  // One cache per claude folder: CLAUDE_CONFIG_DIR may name another one next time.
  const base = path.join(
    cacheDir,
    `claude-sessions-${createHash("sha256").update(configDir).digest("hex").slice(0, 16)}`,
  );
  const cache = await loadCache(base + ".json");
  const cards = cache.cards
    ? await readFile(path.join(path.dirname(base), cache.cards)).catch(() => Buffer.alloc(0))
    : Buffer.alloc(0);
  const next = new Map<string, { cwds: Array<string | null>; entries: Map<string, Entry> }>();
  let changed = false;
  const folders = (await readdir(root, { withFileTypes: true }).catch(() => [] as Dirent[])).filter((d) =>
    d.isDirectory(),
  );
  if (folders.length !== Object.keys(cache.folders).length) changed = true;
  // Only what sorting needs is made per transcript; a card is sliced and parsed only when shown.
  const found: Array<{ dir: string; name: string; mtimeMs: number; entry: Entry }> = [];
  let unreadable = 0;
  for (const folder of folders) {
    const dir = path.join(root, folder.name);
    const known = cache.folders[folder.name];
    const cwds = known?.cwds ?? [];
    const entries = new Map<string, Entry>();
    next.set(folder.name, { cwds, entries });
    if (known && cwds.length === 1 && cwds[0] !== null && !wanted(cwds[0]!)) {
      // Kept as it was: the folder's transcripts are another project's.
      for (const name in known.files) entries.set(name, known.files[name]!);
      continue;
    }
    const names = (await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])).filter(
      (e) => e.isFile() && e.name.endsWith(".jsonl"),
    );
    const missed: Array<{ name: string; size: number; mtimeMs: number }> = [];
    for (const { name } of names) {
      // Synchronous: 2,000 stats of cached metadata cost less this way than as 2,000 promises.
      const s = statOrNull(`${dir}${path.sep}${name}`);
      if (!s) {
        unreadable++;
        continue;
      }
      const hit = known?.files[name];
      if (hit && hit[0] === s.size && hit[1] === s.mtimeMs && hit[4] > 0 && hit[3] + hit[4] <= cards.length)
        entries.set(name, hit);
      else missed.push({ name, size: s.size, mtimeMs: s.mtimeMs });
    }
    for (let i = 0; i < missed.length; i += AT_ONCE) {
      await Promise.all(
        missed.slice(i, i + AT_ONCE).map(async (m) => {
          const card = await readCard(path.join(dir, m.name), m).catch(() => null);
          if (!card) return void unreadable++;
          const { file: _file, ...kept } = card;
          void _file;
          entries.set(m.name, {
            size: m.size,
            mtimeMs: m.mtimeMs,
            cwd: card.cwd,
            card: Buffer.from(
              JSON.stringify({ ...kept, firstPrompt: cut(kept.firstPrompt), lastPrompt: cut(kept.lastPrompt) }),
            ),
          });
          changed = true;
        }),
      );
    }
    for (const [name, e] of entries) {
      const cwd = Array.isArray(e) ? (cwds[e[2]] ?? null) : e.cwd;
      if (wanted(cwd) && !o.skip?.has(name.slice(0, -".jsonl".length)))
        found.push({ dir, name, mtimeMs: Array.isArray(e) ? e[1] : e.mtimeMs, entry: e });
    }
    if (!known || Object.keys(known.files).length !== entries.size) changed = true;
  }
  const cardOf = (e: Entry) => (Array.isArray(e) ? cards.subarray(e[3], e[3] + e[4]) : e.card);
  if (changed) await saveCache(base, cache.cards, next, cardOf).catch(() => undefined);
  found.sort((a, b) => b.mtimeMs - a.mtimeMs);
  const shown = o.limit === undefined ? found : found.slice(0, o.limit);
  const sessions = shown.flatMap((f) => {
    const card = parseCard(cardOf(f.entry));
    return card ? [{ ...card, id: f.name.slice(0, -".jsonl".length), file: path.join(f.dir, f.name) }] : [];
  });
  return { sessions, total: found.length, unreadable };
}

/** A new cards file, then the index that names it, then the old cards file removed: a reader of the old index meanwhile reads the old cards (or, gone, reads the transcripts again). */
async function saveCache(
  base: string,
  oldCards: string,
  folders: Map<string, { cwds: Array<string | null>; entries: Map<string, Entry> }>,
  cardOf: (e: Entry) => Buffer,
): Promise<void> {
  const pieces: Buffer[] = [];
  let at = 0;
  const cardsName = `${path.basename(base)}.${randomBytes(4).toString("hex")}.cards`;
  const index: Cache = { version: CACHE_VERSION, cards: cardsName, folders: {} };
  for (const [folder, { cwds: old, entries }] of folders) {
    const cwds: Array<string | null> = [];
    const files: Record<string, Cached> = {};
    for (const [name, e] of entries) {
      const cwd = Array.isArray(e) ? (old[e[2]] ?? null) : e.cwd;
      let k = cwds.indexOf(cwd);
      if (k === -1) k = cwds.push(cwd) - 1;
      const card = cardOf(e);
      files[name] = [Array.isArray(e) ? e[0] : e.size, Array.isArray(e) ? e[1] : e.mtimeMs, k, at, card.length];
      pieces.push(card, NEWLINE);
      at += card.length + 1;
    }
    index.folders[folder] = { cwds, files };
  }
  await ensureDir(path.dirname(base));
  await writeFileAtomic(path.join(path.dirname(base), cardsName), Buffer.concat(pieces, at));
  await writeFileAtomic(base + ".json", JSON.stringify(index));
  if (oldCards) await rm(path.join(path.dirname(base), oldCards), { force: true });
}

const NEWLINE = Buffer.from("\n");

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

function statOrNull(file: string): { size: number; mtimeMs: number } | null {
  try {
    const s = statSync(file);
    return s.isFile() ? { size: s.size, mtimeMs: s.mtimeMs } : null;
  } catch {
    return null;
  }
}

function cut(text: string | null): string | null {
  return text !== null && text.length > PROMPT_CHARS ? text.slice(0, PROMPT_CHARS) : text;
}

async function loadCache(file: string): Promise<Cache> {
  try {
    const json = JSON.parse(await readFile(file, "utf8")) as Partial<Cache>;
    // nudge's own file, rebuilt from claude's whenever it is not what this version wrote.
    if (json.version === CACHE_VERSION && json.folders && typeof json.folders === "object") {
      const folders: Cache["folders"] = {};
      for (const name in json.folders) {
        const f = json.folders[name];
        if (!f || typeof f !== "object" || !f.files || typeof f.files !== "object" || !Array.isArray(f.cwds)) continue;
        const files: Record<string, Cached> = {};
        for (const n in f.files) {
          const c = f.files[n];
          if (
            Array.isArray(c) &&
            c.length === 5 &&
            c.every((v) => typeof v === "number") &&
            (f.cwds[c[2]] === null || typeof f.cwds[c[2]] === "string")
          )
            files[n] = c;
        }
        folders[name] = { cwds: f.cwds, files };
      }
      return {
        version: CACHE_VERSION,
        cards: typeof json.cards === "string" && /^[\w.-]+\.cards$/.test(json.cards) ? json.cards : "",
        folders,
      };
    }
  } catch {
    // none yet, or damaged: rebuilt
  }
  return { version: CACHE_VERSION, cards: "", folders: {} };
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
