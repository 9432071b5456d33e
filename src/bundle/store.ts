/**
 * Where bundles live: `<git common dir>/nudge/` (never committed, shared by all worktrees), or
 * `$NUDGE_STORE` when set. One folder per session under `sessions/`.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../errors.js";
import { claudeConfigDir } from "../claude/transcript.js";
import { commonDir, repoRoot } from "../snapshot/git.js";
import { writeFileAtomic } from "./atomic-write.js";
import { ManifestSchema, type Manifest } from "./manifest-schema.js";
import { isLocked, lockActivity } from "./session-lock.js";

export interface Store {
  /** The repository's work tree top (of the worktree nudge was started in). */
  repoRoot: string;
  /** nudge's folder: sessions, private indexes. */
  dir: string;
  /** Folders of nudge's and claude's own files, never to be snapshotted (see own-paths.ts). */
  ownDirs: string[];
}

export async function openStore(cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Store> {
  const root = await repoRoot(cwd);
  const dir = env.NUDGE_STORE ? path.resolve(env.NUDGE_STORE) : path.join(await commonDir(root), "nudge");
  const stat = await fs.stat(dir).catch(() => null);
  if (stat && !stat.isDirectory()) {
    throw new UserError(`the nudge store is not a folder: ${dir}`, "point NUDGE_STORE at a folder (it is made if missing), or unset it");
  }
  return { repoRoot: root, dir, ownDirs: [dir, claudeConfigDir(env)] };
}

export function bundleDir(store: Store, id: string): string {
  return path.join(store.dir, "sessions", id);
}

/** The files of one bundle; the README's "bundle format" section describes each. */
export function bundleFiles(dir: string) {
  return {
    dir,
    manifest: path.join(dir, "manifest.json"),
    conversation: path.join(dir, "conversation.jsonl"),
    timing: path.join(dir, "timing.txt"),
    stderr: path.join(dir, "claude-stderr.log"),
    changes: path.join(dir, "changes"),
    transcripts: path.join(dir, "claude"),
    lock: path.join(dir, "lock"),
  };
}
export type BundleFiles = ReturnType<typeof bundleFiles>;

export function patchName(n: number): string {
  return `changes/turn-${String(n).padStart(3, "0")}.patch`;
}

export function newSessionId(): string {
  return randomBytes(5).toString("hex"); // 10 hex chars: short to type, unique per repo in practice
}

export async function readManifest(dir: string): Promise<Manifest> {
  const file = bundleFiles(dir).manifest;
  let raw: string;
  try {
    raw = await fs.readFile(file, "utf8");
  } catch {
    throw new UserError(`no session bundle at ${dir}`, "list the sessions with: nudge session list");
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new UserError(`${file} is not valid JSON`, "the bundle is damaged; restore it from an export if you have one");
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UserError(
      `${file} does not match the bundle format: ${issue?.path.join(".")}: ${issue?.message}`,
      "the bundle was written by another nudge version or damaged",
    );
  }
  return parsed.data;
}

export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  const checked = ManifestSchema.parse(manifest); // never write a manifest a reader would reject
  await writeFileAtomic(bundleFiles(dir).manifest, JSON.stringify(checked, null, 2) + "\n");
}

/** Read, change and atomically write back a session's manifest (for changes made outside a recording). */
export async function updateManifest(dir: string, fields: Partial<Manifest>): Promise<void> {
  await writeManifest(dir, { ...(await readManifest(dir)), ...fields, updatedAt: new Date().toISOString() });
}

export type SessionState = "recording" | "complete" | "crashed";

export interface StoredSession {
  dir: string;
  manifest: Manifest;
  state: SessionState;
}

/** "recording" in a manifest whose lock holder is gone means nudge or the machine died mid-session. */
export async function sessionState(dir: string, manifest: Manifest): Promise<SessionState> {
  if (manifest.state === "complete") return "complete";
  return (await isLocked(bundleFiles(dir).lock)) ? "recording" : "crashed";
}

export async function loadSession(store: Store, id: string): Promise<StoredSession> {
  const dir = bundleDir(store, id);
  const manifest = await readManifest(dir);
  return { dir, manifest, state: await sessionState(dir, manifest) };
}

/** The ids of the stored sessions: their folder names (a dot-folder is a fork still being built). */
async function sessionIds(store: Store): Promise<string[]> {
  try {
    return (await fs.readdir(path.join(store.dir, "sessions"))).filter((name) => !name.startsWith("."));
  } catch {
    return [];
  }
}

/** A session whose claude may be changing files right now. */
export interface LiveClaude {
  id: string;
  /** The work tree its claude works in. */
  root: string;
  /** null: a nudge is recording it; a pid: the claude a dead nudge left running (kill -9, a crash). */
  orphanPid: number | null;
}

/**
 * Sessions with a claude that may be writing files: recorded now, or orphaned by a nudge that
 * died. Each lock is read once, and only the manifests of those sessions are read.
 */
export async function liveClaudes(store: Store): Promise<LiveClaude[]> {
  const live: LiveClaude[] = [];
  for (const id of await sessionIds(store)) {
    const dir = bundleDir(store, id);
    const activity = await lockActivity(bundleFiles(dir).lock);
    if (!activity) continue;
    const manifest = await readManifest(dir).catch(() => null);
    if (!manifest) continue;
    if (activity !== "recording") live.push({ id, root: manifest.repo.root, orphanPid: activity.orphanPid });
    else if (manifest.state === "recording") live.push({ id, root: manifest.repo.root, orphanPid: null });
  }
  return live;
}

/** Every readable session, newest first; unreadable folders are reported through `onSkip`. */
export async function listSessions(store: Store, onSkip?: (dir: string, why: string) => void): Promise<StoredSession[]> {
  const sessions: StoredSession[] = [];
  for (const name of await sessionIds(store)) {
    const dir = bundleDir(store, name);
    try {
      sessions.push(await loadSession(store, name));
    } catch (error) {
      onSkip?.(dir, (error as Error).message);
    }
  }
  return sessions.sort((a, b) => b.manifest.createdAt.localeCompare(a.manifest.createdAt));
}

/** A full id or a unique prefix of one. Matched on folder names: only the match is read. */
export async function resolveSession(store: Store, idOrPrefix: string): Promise<StoredSession> {
  if (idOrPrefix.trim() === "") throw new UserError("no session id given", "list the sessions with: nudge session list");
  const ids = await sessionIds(store);
  const matches = ids.includes(idOrPrefix) ? [idOrPrefix] : ids.filter((id) => id.startsWith(idOrPrefix));
  if (matches.length === 1) return loadSession(store, matches[0]!);
  if (matches.length === 0) {
    throw new UserError(`no session matches "${idOrPrefix}"`, "list the sessions with: nudge session list");
  }
  throw new UserError(`"${idOrPrefix}" is ambiguous: ${matches.sort().slice(0, 8).join(", ")}`, "type more of the id");
}
