/** Everything nudge keeps for a repository, to compare before and after a command that must change nothing. */
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import { git } from "./gitdir.js";

/** Every file under a folder with its size, relative paths sorted. */
export function fileListing(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    let names: string[];
    try {
      names = readdirSync(at);
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.join(at, name);
      // A file gone between the listing and its stat (a background untracked-cache check's scratch
      // clone, which cleans up after itself) is not part of what is compared.
      const stat = lstatSync(full, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) walk(full);
      else out.push(`${path.relative(dir, full)} ${stat.size}`);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * The files of nudge's store, less the session index (sessions-index.txt): a cache of the
 * sessions' headers that any listing may write, whatever else the command changes or not (what
 * it holds is checked against the bundles each time it is used: test/store/session-index.test.ts).
 */
export function storeFiles(store: string): string[] {
  return fileListing(store).filter((f) => !f.startsWith("sessions-index.txt "));
}

/** nudge's refs with their tips. */
export async function nudgeRefs(repo: string): Promise<string[]> {
  return (await git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/nudge/"))
    .split("\n")
    .filter(Boolean);
}

/**
 * The store's files, nudge's refs, and the shared index files in the git dir. Left out: the
 * untracked-cache check a recording starts in the background, which finishes on its own time.
 */
export async function storeState(repo: string): Promise<{ files: string[]; refs: string[]; gitDir: string[] }> {
  const gitDir = path.join(repo, ".git");
  return {
    files: storeFiles(path.join(gitDir, "nudge")).filter((f) => !f.startsWith("index/untracked-cache-")),
    refs: await nudgeRefs(repo),
    gitDir: readdirSync(gitDir)
      .filter((n) => n.startsWith("sharedindex."))
      .sort(),
  };
}
