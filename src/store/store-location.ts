/**
 * Where nudge's store is for a folder, apart from store.ts (the bundles' readers) so that a hook of
 * claude's, which claude waits on, finds the store without loading them.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { visible } from "../base/inert-text.js";
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
  const dir = env.NUDGE_STORE ? storeFolder(env.NUDGE_STORE) : path.join(commonDir, "nudge");
  const stat = await fs.stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null; // made when first written
    // A file on the way: no command could ever make the store there, a reading one included.
    if (error.code === "ENOTDIR")
      throw new UserError(
        `the nudge store cannot be made at ${visible(dir)}: a file stands on its path`,
        "point NUDGE_STORE at a folder (it is made if missing), or unset it",
      );
    throw error;
  });
  if (stat && !stat.isDirectory()) {
    throw new UserError(
      `the nudge store is not a folder: ${visible(dir)}`,
      "point NUDGE_STORE at a folder (it is made if missing), or unset it",
    );
  }
  return { repoRoot: root, commonDir, gitDir, dir, ownDirs: [dir, claudeConfigDir(env)] };
}

/** NUDGE_STORE as an absolute path: a relative one would name another store in every folder a command runs from. */
function storeFolder(named: string): string {
  if (path.isAbsolute(named)) return path.normalize(named);
  // `~` left as it is (quoted, or set outside a shell) means the home folder, not a folder named `~`.
  const meant = named === "~" || named.startsWith("~/") ? path.join(os.homedir(), named.slice(1)) : path.resolve(named);
  throw new UserError(
    `NUDGE_STORE must be an absolute path, not ${visible(named)}: relative, it would name another store in every folder`,
    `e.g. NUDGE_STORE="${visible(meant)}", or unset it to keep the store in the repository's .git`,
  );
}

export function bundleDir(store: Store, id: string): string {
  return path.join(store.dir, "sessions", id);
}
