/**
 * claude's own sessions on this machine: every `<config>/projects/<folder>/<id>.jsonl` that is a
 * regular file (links are not followed), each read once into a card (claude-session-card.ts) and
 * kept in a cache keyed by (path, size, mtime) in nudge's store, so a listing costs a stat per
 * transcript. A folder whose transcripts all ran outside the repository is skipped by its cached
 * working directory: its files are not even stat'ed. Claude's folder is never written.
 */
import type { Dirent } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { ensureDir, writeFileAtomic } from "../bundle/atomic-write.js";
import { readCard, type ClaudeSessionCard } from "../claude/claude-session-card.js";

const CACHE_FILE = "claude-sessions.json";
const CACHE_VERSION = 1;
const AT_ONCE = 32;

interface Cached {
  size: number;
  mtimeMs: number;
  card: ClaudeSessionCard;
}
interface Cache {
  version: number;
  /** folder name → the working directory its transcripts ran in (when they agree). */
  folders: Record<string, string | null>;
  files: Record<string, Cached>;
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
  const cache = await loadCache(cacheDir);
  const next: Cache = { version: CACHE_VERSION, folders: {}, files: {} };
  let changed = false;
  const folders = (await readdir(root, { withFileTypes: true }).catch(() => [] as Dirent[])).filter((d) => d.isDirectory());
  const byDir = new Map<string, Array<[string, Cached]>>();
  for (const entry of Object.entries(cache.files)) {
    const dir = path.dirname(entry[0]);
    const list = byDir.get(dir);
    if (list) list.push(entry);
    else byDir.set(dir, [entry]);
  }
  const sessions: ClaudeSessionCard[] = [];
  let unreadable = 0;
  for (const folder of folders) {
    const dir = path.join(root, folder.name);
    const known = cache.folders[folder.name];
    if (known !== undefined && known !== null && !wanted(known)) {
      // Kept as it was: the folder's transcripts are another project's.
      next.folders[folder.name] = known;
      for (const [file, c] of byDir.get(dir) ?? []) next.files[file] = c;
      continue;
    }
    const names = (await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])).filter((e) => e.isFile() && e.name.endsWith(".jsonl"));
    const cwds = new Set<string | null>();
    for (let i = 0; i < names.length; i += AT_ONCE) {
      const cards = await Promise.all(
        names.slice(i, i + AT_ONCE).map(async (e) => {
          const file = path.join(dir, e.name);
          const s = await stat(file).catch(() => null);
          if (!s?.isFile()) return null;
          const hit = cache.files[file];
          if (hit && hit.size === s.size && hit.mtimeMs === s.mtimeMs) {
            next.files[file] = hit;
            return hit.card;
          }
          const card = await readCard(file, s).catch(() => null);
          if (!card) return null;
          changed = true;
          next.files[file] = { size: s.size, mtimeMs: s.mtimeMs, card };
          return card;
        }),
      );
      for (const card of cards) {
        if (!card) {
          unreadable++;
          continue;
        }
        cwds.add(card.cwd);
        if (wanted(card.cwd)) sessions.push(card);
      }
    }
    const agreed = cwds.size === 1 ? [...cwds][0]! : null;
    next.folders[folder.name] = agreed;
    if (agreed !== known) changed = true;
  }
  if (changed || Object.keys(next.files).length !== Object.keys(cache.files).length) await ensureDir(cacheDir).then(() => writeFileAtomic(path.join(cacheDir, CACHE_FILE), JSON.stringify(next))).catch(() => undefined);
  sessions.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return { sessions, unreadable };
}

async function loadCache(dir: string): Promise<Cache> {
  try {
    const json = JSON.parse(await readFile(path.join(dir, CACHE_FILE), "utf8")) as Partial<Cache>;
    // nudge's own file, rebuilt from claude's whenever it is not what this version wrote.
    if (json.version === CACHE_VERSION && json.files && typeof json.files === "object" && json.folders && typeof json.folders === "object") return json as Cache;
  } catch {
    // none yet, or damaged: rebuilt
  }
  return { version: CACHE_VERSION, folders: {}, files: {} };
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
