/**
 * claude's own sessions on this machine: every `<config>/projects/<folder>/<id>.jsonl` that is a
 * regular file (links are not followed), each read once into a card (claude-session-card.ts) and
 * kept in a cache keyed by (path, size, mtime) in nudge's store, so a listing costs a stat per
 * transcript. A folder whose transcripts all ran outside the repository is skipped by its cached
 * working directory: its files are not even stat'ed. Claude's folder is never written.
 */
import { createHash } from "node:crypto";
import { statSync, type Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { ensureDir, writeFileAtomic } from "../bundle/atomic-write.js";
import { readCard, type ClaudeSessionCard } from "../claude/claude-session-card.js";

const CACHE_VERSION = 2;
const AT_ONCE = 16;
/** A cached card's prompts are cut to this many characters: the cache stays small, and a listing shows far less. */
const PROMPT_CHARS = 1000;

/** A transcript's card as cached: its identity (size, mtime) and the card without its path. */
type Cached = [size: number, mtimeMs: number, card: Omit<ClaudeSessionCard, "file">];
interface CachedFolder {
  /** The working directory its transcripts ran in, when they all agree. */
  cwd: string | null;
  files: Record<string, Cached>;
}
interface Cache {
  version: number;
  folders: Record<string, CachedFolder>;
}

/** Which working directories a listing wants: this repository's (its worktrees, its subfolders), or every one. */
export type CwdFilter = (cwd: string | null) => boolean;

export interface ClaudeSessionScan {
  sessions: ClaudeSessionCard[];
  /** Transcripts found but not readable (removed meanwhile, not a regular file). */
  unreadable: number;
}

export async function scanClaudeSessions(configDir: string, cacheDir: string, wanted: CwdFilter): Promise<ClaudeSessionScan> {
  const root = path.join(configDir, "projects");
  // One cache per claude folder: CLAUDE_CONFIG_DIR may name another one next time.
  const cacheFile = path.join(cacheDir, `claude-sessions-${createHash("sha256").update(configDir).digest("hex").slice(0, 16)}.json`);
  const cache = await loadCache(cacheFile);
  const next: Cache = { version: CACHE_VERSION, folders: {} };
  let changed = false;
  const folders = (await readdir(root, { withFileTypes: true }).catch(() => [] as Dirent[])).filter((d) => d.isDirectory());
  if (folders.length !== Object.keys(cache.folders).length) changed = true;
  const sessions: ClaudeSessionCard[] = [];
  let unreadable = 0;
  for (const folder of folders) {
    const dir = path.join(root, folder.name);
    const known = cache.folders[folder.name];
    if (known && known.cwd !== null && !wanted(known.cwd)) {
      // Kept as it was: the folder's transcripts are another project's.
      next.folders[folder.name] = known;
      continue;
    }
    const names = (await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])).filter((e) => e.isFile() && e.name.endsWith(".jsonl"));
    const files: Record<string, Cached> = {};
    const missed: Array<{ name: string; size: number; mtimeMs: number }> = [];
    for (const { name } of names) {
      // Synchronous: 2,000 stats of cached metadata cost less this way than as 2,000 promises.
      const s = statOrNull(path.join(dir, name));
      if (!s) {
        unreadable++;
        continue;
      }
      const hit = known?.files[name];
      if (hit && hit[0] === s.size && hit[1] === s.mtimeMs) files[name] = hit;
      else missed.push({ name, size: s.size, mtimeMs: s.mtimeMs });
    }
    for (let i = 0; i < missed.length; i += AT_ONCE) {
      await Promise.all(
        missed.slice(i, i + AT_ONCE).map(async (m) => {
          const card = await readCard(path.join(dir, m.name), m).catch(() => null);
          if (!card) return void unreadable++;
          const { file: _file, ...kept } = card;
          void _file;
          files[m.name] = [m.size, m.mtimeMs, { ...kept, firstPrompt: cut(kept.firstPrompt), lastPrompt: cut(kept.lastPrompt) }];
          changed = true;
        }),
      );
    }
    const cwds = new Set<string | null>();
    for (const [name, [, , card]] of Object.entries(files)) {
      cwds.add(card.cwd);
      if (wanted(card.cwd)) sessions.push({ ...card, file: path.join(dir, name) });
    }
    if (!known || Object.keys(known.files).length !== Object.keys(files).length) changed = true;
    next.folders[folder.name] = { cwd: cwds.size === 1 ? [...cwds][0]! : null, files };
  }
  if (changed) await ensureDir(cacheDir).then(() => writeFileAtomic(cacheFile, JSON.stringify(next))).catch(() => undefined);
  sessions.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return { sessions, unreadable };
}

function statOrNull(file: string): { size: number; mtimeMs: number } | null {
  try {
    const s = statSync(file);
    return s.isFile() ? { size: s.size, mtimeMs: s.mtimeMs } : null;
  } catch {
    return null;
  }
}

function isCard(c: unknown): c is Cached[2] {
  const card = c as Partial<Cached[2]> | null;
  return card !== null && typeof card === "object" && typeof card.id === "string" && typeof card.updatedAt === "string" && typeof card.startedAt === "string" && (card.cwd === null || typeof card.cwd === "string");
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
      for (const [name, f] of Object.entries(json.folders)) {
        if (!f || typeof f !== "object" || !f.files || typeof f.files !== "object" || (f.cwd !== null && typeof f.cwd !== "string")) continue;
        const files = Object.fromEntries(Object.entries(f.files).filter(([, c]) => Array.isArray(c) && typeof c[0] === "number" && typeof c[1] === "number" && isCard(c[2])));
        folders[name] = { cwd: f.cwd, files };
      }
      return { version: CACHE_VERSION, folders };
    }
  } catch {
    // none yet, or damaged: rebuilt
  }
  return { version: CACHE_VERSION, folders: {} };
}

/** Is `cwd` one of these folders, or inside one? */
export function insideAny(roots: string[]): CwdFilter {
  return (cwd) => cwd !== null && roots.some((r) => cwd === r || cwd.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
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
