/**
 * Decide which bundle a `nudge claude run` records into: a new session, the latest one (-c), or
 * a named one (-r). A session that was rewound continues in an automatic fork, so the turns after
 * the rewind point stay recorded and listable.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ensureDir } from "../bundle/atomic-write.js";
import { UserError } from "../errors.js";
import { MANIFEST_FORMAT, type Manifest } from "../bundle/manifest-schema.js";
import { bundleDir, listSessions, newSessionId, resolveSession, type Store } from "../bundle/store.js";
import * as git from "../snapshot/git.js";

export type SessionChoice = { kind: "new" } | { kind: "continue" } | { kind: "resume"; id: string };

export interface OpenedSession {
  dir: string;
  manifest: Manifest;
  isNew: boolean;
}

export interface OpenSessionHooks {
  /** Make a fork of `id` at `turn` and return it (supplied by the time-travel layer). */
  forkAt: (id: string, turn: number) => Promise<OpenedSession>;
}

export async function openSession(
  store: Store,
  cwd: string,
  choice: SessionChoice,
  hooks: OpenSessionHooks,
): Promise<OpenedSession> {
  if (choice.kind === "new") return createSession(store, cwd);
  // -c: the latest session of this work tree (the store is shared by all worktrees, or more with NUDGE_STORE).
  const existing =
    choice.kind === "resume"
      ? await resolveSession(store, choice.id)
      : (await listSessions(store)).find((s) => s.manifest.repo.root === store.repoRoot);
  if (!existing) throw new UserError("no session to continue in this work tree", "start one with: nudge claude run");
  const { manifest, dir } = existing;
  if (manifest.rewoundTo !== null) return hooks.forkAt(manifest.id, manifest.rewoundTo);
  return { dir, manifest, isNew: false };
}

export async function createSession(store: Store, cwd: string, parent: Manifest["parent"] = null): Promise<OpenedSession> {
  const root = store.repoRoot;
  const [baseCommit, branch] = await Promise.all([git.headCommit(root), git.currentBranch(root)]);
  const id = newSessionId();
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
    repo: { root, cwd, baseCommit, branch },
    claude: { version: null, model: null },
    parent,
    resume: null,
    rewoundTo: null,
    pendingTurn: null,
    turns: [],
  };
  return { dir, manifest, isNew: true };
}

/** The private index a session's snapshots stage into (one per session: no cross-talk between two nudges). */
export function privateIndexFile(store: Store, id: string): string {
  return path.join(store.dir, "index", id);
}
