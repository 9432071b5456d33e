/**
 * Where nudge's store is for a folder, apart from store.ts (the bundles' readers) so that a hook of
 * claude's, which claude waits on, finds the store without loading them.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { claudeConfigDir } from "../claude/transcript.js";
import type { RepoLocation } from "../snapshot/repo-location.js";

export interface Store {
  /** The repository's work tree top (of the worktree nudge was started in). */
  repoRoot: string;
  /** The git dir shared by all worktrees of the repository. */
  commonDir: string;
  /** This worktree's own git dir (the common one for the main work tree). */
  gitDir: string;
  /** nudge's folder: sessions, private indexes, locks, rewind records. */
  dir: string;
  /** Folders of nudge's and claude's own files, never to be snapshotted (see own-paths.ts). */
  ownDirs: string[];
}

/** `locate`: how the repository is found (default: git's answer, repo-location.ts). */
export async function openStore(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  locate?: (cwd: string) => Promise<RepoLocation>,
): Promise<Store> {
  const find = locate ?? (await import("../snapshot/repo-location.js")).repoLocation;
  const { root, commonDir, gitDir } = await find(cwd);
  const dir = env.NUDGE_STORE ? path.resolve(env.NUDGE_STORE) : path.join(commonDir, "nudge");
  const stat = await fs.stat(dir).catch(() => null);
  if (stat && !stat.isDirectory()) {
    throw new UserError(
      `the nudge store is not a folder: ${dir}`,
      "point NUDGE_STORE at a folder (it is made if missing), or unset it",
    );
  }
  return { repoRoot: root, commonDir, gitDir, dir, ownDirs: [dir, claudeConfigDir(env)] };
}

export function bundleDir(store: Store, id: string): string {
  return path.join(store.dir, "sessions", id);
}
