/**
 * Every project claude has kept sessions for on this machine: the folders of
 * `<config>/projects/<encoded cwd>/`, each with its transcripts counted by name and stat alone,
 * and its working directory read from the `cwd` of one transcript's first records (the folder's
 * name is a lossy encoding of it). Claude's folder is read, never written; links in it are not
 * followed; every read is bounded, so a huge or damaged transcript costs what its first 64 KB do.
 */
import { existsSync, statSync, type Dirent } from "node:fs";
import { open, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { encodeProjectDir } from "./transcript.js";

export interface ClaudeProject {
  /** The folder under `<config>/projects/`. */
  folder: string;
  /** The working directory claude ran in (from a transcript), or null when none says. */
  cwd: string | null;
  /** Every directory whose sessions the folder holds (projectNames), `cwd` first; set by the web's listing. */
  cwds?: string[];
  /** Whether that directory is still there; and whether it is in a git repository. */
  exists: boolean;
  inGit: boolean;
  sessions: number;
  /** Bytes of the transcripts (not their side folders). */
  bytes: number;
  /** The newest transcript's modification time (ISO), or null for a folder with none. */
  lastActivity: string | null;
}

/** More folders than this are not read (a machine with that many projects is listed in part, and says so). */
const MOST_PROJECTS = 5000;
const HEAD_BYTES = 64 * 1024;
const AT_ONCE = 16;

export async function listClaudeProjects(configDir: string): Promise<{ projects: ClaudeProject[]; more: number }> {
  const root = path.join(configDir, "projects");
  const folders = (await readdir(root, { withFileTypes: true }).catch(() => [] as Dirent[])).filter((d) =>
    d.isDirectory(),
  );
  const read = folders.slice(0, MOST_PROJECTS);
  const projects: ClaudeProject[] = [];
  for (let i = 0; i < read.length; i += AT_ONCE)
    projects.push(...(await Promise.all(read.slice(i, i + AT_ONCE).map((d) => readProject(root, d.name)))));
  projects.sort((a, b) => (b.lastActivity ?? "").localeCompare(a.lastActivity ?? ""));
  return { projects, more: folders.length - read.length };
}

/** One folder of `<config>/projects/` read as the listing reads each: every transcript in it, nudge's adopted ones too. */
export async function readClaudeProject(configDir: string, folder: string): Promise<ClaudeProject> {
  return readProject(path.join(configDir, "projects"), folder);
}

async function readProject(root: string, folder: string): Promise<ClaudeProject> {
  const dir = path.join(root, folder);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
  const transcripts = await Promise.all(
    entries
      .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
      .map(async (e) => {
        const file = path.join(dir, e.name);
        const s = await stat(file).catch(() => null);
        return s ? { file, bytes: s.size, mtime: s.mtimeMs } : null;
      }),
  );
  const kept = transcripts.filter((t) => t !== null).sort((a, b) => b.mtime - a.mtime);
  let cwd: string | null = null;
  for (const t of kept.slice(0, 3)) if ((cwd = await cwdOf(t.file))) break;
  const exists =
    cwd !== null &&
    (await stat(cwd).then(
      (s) => s.isDirectory(),
      () => false,
    ));
  return {
    folder,
    cwd,
    exists,
    inGit: exists && inGitRepository(cwd!),
    sessions: kept.length,
    bytes: kept.reduce((sum, t) => sum + t.bytes, 0),
    lastActivity: kept[0] ? new Date(kept[0].mtime).toISOString() : null,
  };
}

/** The first `cwd` among a transcript's first 64 KB of whole lines. */
async function cwdOf(file: string): Promise<string | null> {
  const handle = await open(file, "r").catch(() => null);
  if (!handle) return null;
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    const lines = buffer.subarray(0, bytesRead).toString("utf8").split("\n");
    if (bytesRead === HEAD_BYTES) lines.pop(); // the last line may be cut
    for (const line of lines) {
      const cwd = (safeParse(line) as { cwd?: unknown } | null)?.cwd;
      if (typeof cwd === "string" && path.isAbsolute(cwd) && !cwd.includes("\0")) return cwd;
    }
    return null;
  } finally {
    await handle.close();
  }
}

function safeParse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/** Whether a `.git` (folder or file: a worktree) is in the directory or above it. */
function inGitRepository(dir: string): boolean {
  for (let at = dir; ; at = path.dirname(at)) {
    if (existsSync(path.join(at, ".git"))) return true;
    if (path.dirname(at) === at) return false;
  }
}

/**
 * The directories a folder of claude's holds sessions of, as a person should read its name: claude's
 * encoding is lossy (`/tmp/qa-repo` and `/tmp/qa_repo` are both `-tmp-qa-repo`), so every cwd its
 * transcripts name that encodes to the folder, one that exists and is named most first. A cwd that
 * does not encode to it (a session resumed from elsewhere, a stray record) names it only when no
 * other does, and then only the one named most.
 */
export function projectNames(folder: string, cwds: Array<string | null>): string[] {
  const counts = new Map<string, number>();
  for (const c of cwds) if (c !== null) counts.set(c, (counts.get(c) ?? 0) + 1);
  const ranked = [...counts]
    .map(([cwd, n]) => ({ cwd, n, there: isDirectory(cwd) }))
    .sort((a, b) => Number(b.there) - Number(a.there) || b.n - a.n || a.cwd.localeCompare(b.cwd))
    .map((r) => r.cwd);
  const own = ranked.filter((c) => encodeProjectDir(c) === folder);
  return own.length ? own : ranked.slice(0, 1);
}

/** Whether a directory is there, and in a git repository (as a listing marks a project). */
export function directoryState(cwd: string | null): { exists: boolean; inGit: boolean } {
  const exists = cwd !== null && isDirectory(cwd);
  return { exists, inGit: exists && inGitRepository(cwd!) };
}

function isDirectory(dir: string): boolean {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
