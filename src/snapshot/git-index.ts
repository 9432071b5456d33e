/**
 * git on nudge's private indexes (never the user's): staging the work tree, the status scan a
 * capture starts from, writing trees, and setting entries and files for a switch.
 */
import { excluding, run, text } from "./git-process.js";
import type { TreeChange } from "./git.js";

/**
 * Stage the whole work tree into a private index and write it as a tree: tracked, modified,
 * deleted and untracked files, modes and symlinks; .gitignore'd files are skipped as git does.
 * The index starts as a copy of the user's (seedPrivateIndex), whose stat cache spares hashing
 * unchanged files, so this costs about what `git status` costs.
 *
 * Also names the files git could not read. --ignore-errors stages everything else but still
 * exits 1; one unreadable file (left by docker, chmod 000) must not cost the turn, so that exit
 * is accepted when unreadable files are all git complains about.
 */
export async function stageAll(
  root: string,
  indexFile: string,
  exclude: string[] = [],
): Promise<{ tree: string; unreadable: string[] }> {
  const unreadable: string[] = [];
  await run(root, ["add", "-A", "--ignore-errors", "--", ":/", ...excluding(exclude)], {
    indexFile,
    tolerate: (code, stderr) => {
      const lines = stderr.split("\n").filter((l) => l.trim() !== "");
      if (code !== 1 || lines.length === 0) return false;
      for (const line of lines) {
        const skipped = /^error: unable to index file '(.*)'$/.exec(line);
        if (skipped) unreadable.push(skipped[1]!);
        else if (!/^(error: open\(|error: read error|warning: )/.test(line)) return false;
      }
      return unreadable.length > 0;
    },
  });
  return { tree: await text(root, ["write-tree"], { indexFile }), unreadable };
}

/**
 * Settings for nudge's own private indexes, never the user's:
 * - the untracked cache, built for `-uall`, spares the walk of every folder at each scan (it is
 *   only turned on where `git update-index --test-untracked-cache` passed for the work tree);
 * - the split index writes only what changed at each update instead of the whole index.
 * (No fsmonitor either, its token in a private copy would not be the user's daemon's: it is off for every git nudge runs.)
 */
function privateIndexConfig(untrackedCache: boolean): string[] {
  return [
    "-c",
    `core.untrackedCache=${untrackedCache}`,
    "-c",
    "status.showUntrackedFiles=all",
    "-c",
    "core.splitIndex=true",
    // The split part holds every entry changed since the shared index was last written; git's default
    // (20%) lets it grow for ~1,000 turns of a long session, each read and write slower than the last.
    "-c",
    "splitIndex.maxPercentChange=5",
  ];
}

/**
 * The paths where the work tree differs from a private index: modified, deleted, type-changed,
 * unmerged, untracked (not ignored). One scan, as `git status`. No pathspec unless folders must
 * be left out: any pathspec makes git skip the untracked cache. git may write the refreshed stat
 * data and the untracked cache back into the private index (that is what makes the next scan cheap).
 */
export async function changedSinceIndex(
  root: string,
  indexFile: string,
  o: { untrackedCache: boolean; exclude: string[] },
): Promise<StatusScan> {
  const pathspec = o.exclude.length ? ["--", ":/", ...excluding(o.exclude)] : [];
  // --branch: HEAD comes with the scan ("# branch.oid"), sparing a process of its own.
  const out = await run(
    root,
    [
      ...privateIndexConfig(o.untrackedCache),
      "status",
      "--porcelain=v2",
      "--branch",
      "-z",
      "--untracked-files=all",
      "--no-renames",
      "--ignore-submodules=dirty",
      ...pathspec,
    ],
    { indexFile, env: { GIT_OPTIONAL_LOCKS: "1" } },
  );
  return parseStatusV2(out.toString("latin1"));
}

export interface StatusScan {
  paths: string[];
  /** HEAD's commit, null on an unborn branch. */
  head: string | null;
  /** The branch checked out, null when HEAD is detached; undefined when the scan cannot tell (see parseStatusV2). */
  branch?: string | null;
}

/**
 * `status --porcelain=v2 --branch -z`: HEAD's commit (null on an unborn branch), the branch, and
 * the paths whose work tree side differs (the index-vs-HEAD side is not ours to care about).
 */
function parseStatusV2(out: string): StatusScan {
  const paths: string[] = [];
  let head: string | null = null;
  let branch: string | null | undefined;
  const fields = out.split("\0");
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    if (entry.startsWith("# branch.oid ")) {
      const oid = entry.slice("# branch.oid ".length);
      // A copy of its own: a slice would keep the whole output alive as long as the turn that records HEAD
      // (measured: ~50 KB a turn at 1k files, the heap growing with the session and every spawn slowing).
      head = /^[0-9a-f]{40,64}$/.test(oid) ? Buffer.from(oid, "latin1").toString("latin1") : null; // "(initial)" on an unborn branch
    } else if (entry.startsWith("# branch.head ")) {
      // "(detached)" is also a name a branch could have: that case is left for symbolic-ref to tell.
      const name = Buffer.from(entry.slice("# branch.head ".length), "latin1").toString("utf8");
      branch = name === "(detached)" ? undefined : name;
    } else if (entry.startsWith("? ")) paths.push(entry.slice(2));
    else if (entry.startsWith("1 ") || entry.startsWith("2 ") || entry.startsWith("u ")) {
      // "1 XY sub mH mI mW hH hI path", "2 XY sub mH mI mW hH hI Xscore path" + orig path, "u XY sub m1 m2 m3 mW h1 h2 h3 path".
      const skip = entry[0] === "1" ? 8 : entry[0] === "2" ? 9 : 10;
      let at = 0;
      for (let k = 0; k < skip; k++) at = entry.indexOf(" ", at) + 1;
      const worktreeSide = entry[3];
      if (entry[0] === "u" || worktreeSide !== ".") paths.push(entry.slice(at));
      if (entry[0] === "2") i++; // the original path follows as its own field
    }
  }
  return { paths, head, branch };
}

/**
 * Stage exactly these paths into a private index as they are on disk: new ones added, gone ones
 * removed, a file that became a folder (or the reverse) replaced.
 */
export async function stagePaths(
  root: string,
  indexFile: string,
  paths: string[],
  untrackedCache: boolean,
): Promise<void> {
  if (paths.length === 0) return;
  await run(
    root,
    [...privateIndexConfig(untrackedCache), "update-index", "--add", "--remove", "--replace", "-z", "--stdin"],
    {
      indexFile,
      input: Buffer.from(paths.join("\0") + "\0", "latin1"),
    },
  );
}

/** The private index as a tree (cheap where the index's cached trees are still valid). */
export async function writeTree(root: string, indexFile: string, untrackedCache: boolean): Promise<string> {
  return text(root, [...privateIndexConfig(untrackedCache), "write-tree"], { indexFile });
}

/** Set (or, for deletions, drop) exactly these entries in a private index, leaving all others alone. */
export async function setIndexEntries(root: string, indexFile: string, changes: TreeChange[]): Promise<void> {
  if (changes.length === 0) return;
  // --index-info: "<mode> <id>\t<path>"; mode 0 removes the path.
  // The id of a removal is ignored, but must have the repository's hash length (SHA-1 or SHA-256).
  const input = changes
    .map((c) => `${c.status === "D" ? `0 ${"0".repeat(c.oldBlob.length)}` : `${c.mode} ${c.blob}`}\t${c.path}\0`)
    .join("");
  await run(root, ["update-index", "-z", "--index-info"], { indexFile, input: Buffer.from(input, "latin1") });
}

/**
 * Make these paths of a private index and of the work tree what `tree` has, in one git process.
 * Every path must be in the index or in `tree` (restore refuses a path in neither). For a few paths only:
 * restore matches every index entry against every path asked (1,100 paths of a 10k-file tree:
 * ~4 times the time of setIndexEntries and checkoutPaths, measured). Literal paths, written even
 * outside a sparse checkout's cone, a submodule's work tree never entered.
 */
export async function restorePaths(root: string, indexFile: string, tree: string, paths: string[]): Promise<void> {
  if (paths.length === 0) return;
  await run(
    root,
    [
      "restore",
      `--source=${tree}`,
      "--staged",
      "--worktree",
      "--no-recurse-submodules",
      "--ignore-skip-worktree-bits",
      "--pathspec-from-file=-",
      "--pathspec-file-nul",
    ],
    { indexFile, env: { GIT_LITERAL_PATHSPECS: "1" }, input: Buffer.from(paths.join("\0"), "latin1") },
  );
}

/** Write the given paths from the private index into the work tree (modes and symlinks included). */
export async function checkoutPaths(root: string, indexFile: string, paths: string[]): Promise<void> {
  if (paths.length === 0) return;
  // -z --stdin: any path and no argv length limit. No -u: recording the new files' stat data
  // would rewrite the whole index (~40 ms at 100k files, measured) to spare the check that
  // follows hashing only the files just written.
  await run(root, ["checkout-index", "-f", "-z", "--stdin"], {
    indexFile,
    input: Buffer.from(paths.join("\0"), "latin1"),
  });
}

/** `tree` with these entries set (or, for deletions, dropped), computed in a private index (nothing else is touched). */
export async function overlayTree(
  root: string,
  indexFile: string,
  tree: string,
  changes: TreeChange[],
): Promise<string> {
  await run(root, ["read-tree", tree], { indexFile });
  await setIndexEntries(root, indexFile, changes);
  return text(root, ["write-tree"], { indexFile });
}
