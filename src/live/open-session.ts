/**
 * Which bundle a `nudge claude run` records into: a new session, the one used last in this work
 * tree (-c), or a named one (-r). A session whose folder was moved or renamed is found from the
 * same repository and continues where the work tree is now.
 */
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { ensureDir } from "../store/atomic-write.js";
import { UserError } from "../base/errors.js";
import { MANIFEST_FORMAT, type Manifest } from "../store/manifest-schema.js";
import { lockActivity } from "../store/locks.js";
import {
  bundleDir,
  bundleFiles,
  listSessions,
  loadSession,
  newSessionId,
  readManifest,
  updateHeader,
  type Store,
  type StoredSession,
} from "../store/store.js";
import { holdsStream } from "../store/conversation-pieces.js";
import { resolveNudgeId } from "./session-id.js";
import { pathExists } from "../base/file-exists.js";
import { summaryOf } from "../store/summary.js";
import * as git from "../snapshot/git.js";
import { requireTree } from "../snapshot/snapshotter.js";
import { continueRewound } from "../time-travel/fork-session.js";

export type SessionChoice = { kind: "new" } | { kind: "continue" } | { kind: "resume"; id: string };

export interface OpenedSession {
  dir: string;
  manifest: Manifest;
  isNew: boolean;
}

/**
 * The existing session a choice names (null for a new one). -c takes the session of this work
 * tree that was used last and has at least one turn (an aborted run leaves nothing to continue).
 */
export async function chooseSession(store: Store, choice: SessionChoice): Promise<StoredSession | null> {
  if (choice.kind === "new") return null;
  if (choice.kind === "resume")
    return relocateIfMoved(store, await loadSession(store, await resolveNudgeId(store, choice.id, "resume")));
  const here = (await listSessions(store))
    // A session still marked "recording" was cut off (or is live: its lock says so) and may hold an unsaved turn.
    .filter(
      (s) =>
        (s.header.summary.turns > 0 || s.header.state === "recording") &&
        (s.header.repo.root === store.repoRoot || movedHere(store, s.header.repo)),
    )
    .sort((a, b) => b.header.updatedAt.localeCompare(a.header.updatedAt));
  if (here.length === 0)
    throw new UserError("no session to continue in this work tree", "start one with: nudge claude run");
  return relocateIfMoved(store, await loadSession(store, here[0]!.header.id));
}

/** The worktree's name under .git/worktrees, or null for the main work tree. */
export function worktreeName(store: Store): string | null {
  return path.resolve(store.gitDir) === path.resolve(store.commonDir) ? null : path.basename(store.gitDir);
}

/** Was a session recorded in this same worktree of the repository, at a path that no longer exists? */
function movedHere(store: Store, repo: Manifest["repo"]): boolean {
  return repo.root !== store.repoRoot && !existsSync(repo.root) && (repo.worktree ?? null) === worktreeName(store);
}

/**
 * The project folder was moved or renamed (the repository is the same, so the store came along):
 * the session continues in the work tree where it is now, at the same folder inside it.
 */
async function relocateIfMoved(store: Store, session: StoredSession): Promise<StoredSession> {
  const repo = session.manifest.repo;
  if (!movedHere(store, repo)) return session;
  const inside = path.relative(repo.root, repo.cwd);
  const moved = {
    ...repo,
    root: store.repoRoot,
    cwd: path.join(store.repoRoot, inside.startsWith("..") ? "" : inside),
  };
  await updateHeader(session.dir, { repo: moved });
  return { ...session, manifest: { ...session.manifest, repo: moved } };
}

export async function createSession(store: Store, cwd: string, id = newSessionId()): Promise<OpenedSession> {
  const root = store.repoRoot;
  const [baseCommit, branch] = await Promise.all([git.headCommit(root), git.currentBranch(root)]);
  const dir = bundleDir(store, id);
  await ensureDir(path.dirname(dir));
  await fs.mkdir(dir); // fails if the id exists: never write into another session's folder
  const at = new Date().toISOString();
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    id,
    createdAt: at,
    updatedAt: at,
    state: "recording",
    repo: { root, cwd, baseCommit, branch, worktree: worktreeName(store) },
    claude: { version: null, model: null },
    parent: null,
    resume: null,
    rewoundTo: null,
    origin: null,
    summary: summaryOf([]),
    turns: [],
    unsaved: [],
  };
  return { dir, manifest, isNew: true };
}

/**
 * Session folders a kill left before their first snapshot was saved (no manifest, no conversation,
 * a lock whose nudge is gone): nothing in them can be recovered, so the next run removes them
 * rather than have every listing warn about them.
 */
export async function sweepAbandonedSessions(unreadable: string[]): Promise<void> {
  // Only a folder whose header could not be read can be one (the start-up's scan of the store names them).
  for (const dir of unreadable) {
    const files = bundleFiles(dir);
    if ((await pathExists(files.manifest)) || !(await pathExists(files.lock))) continue;
    if ((await lockActivity(files.lock)) !== null) continue;
    if (await holdsStream(dir)) continue;
    await fs.rm(files.dir, { recursive: true, force: true });
  }
}

/** The private index a session's snapshots stage into (one per session: no cross-talk between two nudges). */
export function privateIndexFile(store: Store, id: string): string {
  return path.join(store.dir, "index", id);
}

/** An existing session, where it goes on: a rewound one in a fork (its later turns stay where they are). */
export async function reopenSession(store: Store, existing: StoredSession): Promise<OpenedSession> {
  const fork = existing.manifest.rewoundTo !== null ? await continueRewound(store, existing) : null;
  const opened = fork
    ? { ...fork, isNew: false }
    : { dir: existing.dir, manifest: await readManifest(existing.dir), isNew: false };
  const last = opened.manifest.turns.at(-1);
  if (last)
    await requireTree(
      opened.manifest.repo.root,
      last.snapshot.tree,
      `the last snapshot of session ${opened.manifest.id}`,
    );
  return opened;
}
