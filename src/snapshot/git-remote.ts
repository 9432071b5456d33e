/**
 * The git calls of session sync (`nudge session push/fetch/pull/unpublish`), kept apart from
 * git.ts. They run in nudge's own bare repository in the store (`<store>/remote.git`), not in
 * the user's: what a remote sends (untrusted until `session import`'s checks pass) never enters
 * the user's refs, and the user's HEAD, index and branches are out of reach. Two exceptions, for
 * the commits of the code a publication builds on (heldByRemote, pushPins, fetchPinnedObjects):
 * pushed from the user's repository, and their objects fetched into it, with no ref either way.
 * The remote is named by URL (resolved in the user's repository, where its name lives).
 *
 * Network calls are bounded in time (a server that stalls is one error, not a hung command) and
 * run with the user's hooks off and no terminal prompt for credentials (a prompt nobody sees
 * would hang; credential helpers from the user's global git config still answer).
 */
import { spawn } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { DISK_FULL_HINT, InternalError, UserError, isDiskFull } from "../base/errors.js";
import { gitChildOptions, NO_HOOKS, spawnGit as spawnProcess, type GitResult } from "./git-process.js";

/**
 * What a hook may inherit (GIT_PREFIX always; GIT_DIR and the like when the push was run with
 * --git-dir or from a script that set them): these calls name their repository by folder, and
 * must not be sent to the user's by an inherited GIT_DIR.
 */
export const REPOSITORY_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
  "GIT_QUARANTINE_PATH",
];

/** A fetch or push that has not finished in this long is stopped. */
const NETWORK_TIMEOUT_MS = 10 * 60_000;

type Result = GitResult;

/** git for the sync: no hooks (unless `asConfigured`), no prompt for credentials, none of the caller's repository variables. */
function spawnGit(
  cwd: string,
  args: string[],
  o: { input?: string | Buffer; timeoutMs?: number; env?: Record<string, string>; asConfigured?: boolean } = {},
): Promise<Result> {
  return spawnProcess(
    cwd,
    [...(o.asConfigured ? [] : NO_HOOKS), ...args],
    { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", ...o.env },
    o.input,
    { unset: REPOSITORY_ENV, timeoutMs: o.timeoutMs },
  );
}

async function run(cwd: string, args: string[], o: { input?: string | Buffer } = {}): Promise<Buffer> {
  const r = await spawnGit(cwd, args, o);
  if (r.exitCode !== 0) throw new InternalError(`git ${args[0]} failed (exit ${r.exitCode}): ${r.stderr}`);
  return r.stdout;
}

/** The last lines git said, for an error about a remote: its own words, one line. */
function gitSaid(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("hint:"));
  return lines.slice(-2).join(" · ").slice(0, 400) || "no message";
}

function remoteError(doing: string, url: string, r: Result): UserError {
  // A full disk here is this clone's, not the remote's: the URL is not the thing to check.
  const hint = isDiskFull(r.stderr)
    ? DISK_FULL_HINT
    : "check the remote's URL and that you can reach it (git ls-remote <remote> works), then run the command again";
  return new UserError(`${doing} ${url} failed: ${gitSaid(r.stderr)}`, hint);
}

/** nudge's bare repository for sync, made on first use with the object format of the user's. */
export async function syncRepository(dir: string, objectFormat: "sha1" | "sha256"): Promise<string> {
  if (existsSync(path.join(dir, "HEAD"))) return dir;
  await fs.mkdir(path.dirname(dir), { recursive: true });
  // Made beside its final place and renamed: two nudges starting at once end with one whole repository.
  const temp = `${dir}.${process.pid}.tmp`;
  try {
    await run(path.dirname(dir), ["init", "-q", "--bare", `--object-format=${objectFormat}`, temp]);
    // No auto-gc in the middle of a push; objects no ref reaches are nudge's to drop, never the user's.
    await run(temp, ["config", "gc.auto", "0"]);
  } catch (error) {
    await fs.rm(temp, { recursive: true, force: true }); // a full disk leaves git's half-made folder
    throw error;
  }
  await fs.rename(temp, dir).catch(async (error: NodeJS.ErrnoException) => {
    await fs.rm(temp, { recursive: true, force: true });
    if (!existsSync(path.join(dir, "HEAD"))) throw error;
  });
  return dir;
}

/** What a remote name or URL points at, resolved in the user's repository: the fetch URL and the push URL. */
export async function remoteUrls(root: string, remote: string): Promise<{ fetch: string; push: string } | null> {
  const fetchUrl = await spawnGit(root, ["remote", "get-url", remote]);
  if (fetchUrl.exitCode !== 0) return null;
  const pushUrl = await spawnGit(root, ["remote", "get-url", "--push", remote]);
  const text = (b: Buffer) => b.toString("utf8").trim();
  return { fetch: text(fetchUrl.stdout), push: pushUrl.exitCode === 0 ? text(pushUrl.stdout) : text(fetchUrl.stdout) };
}

/** A git config value of the user's repository, or null. */
export async function configValue(root: string, key: string): Promise<string | null> {
  const r = await spawnGit(root, ["config", "--get", key]);
  return r.exitCode === 0 ? r.stdout.toString("utf8").trim() : null;
}

/**
 * Arguments read by git's own option parser, given a command's options as a `rev-parse --parseopt`
 * spec: `set -- <options in long form> -- <the rest>`, shell-quoted; null when git refuses them.
 */
export async function parseOptions(root: string, spec: string, args: string[]): Promise<string | null> {
  const r = await spawnGit(root, ["rev-parse", "--parseopt", "--stuck-long", "--", ...args], { input: spec });
  return r.exitCode === 0 ? r.stdout.toString("utf8") : null;
}

/** Set a git config value of a repository of nudge's own (the sync repository). */
export async function setConfigValue(repo: string, key: string, value: string): Promise<void> {
  await run(repo, ["config", key, value]);
}

/** The remote's refs under `prefix` (only names and ids travel: no object). */
export async function lsRemote(repo: string, url: string, prefix: string): Promise<Map<string, string>> {
  const r = await spawnGit(repo, ["ls-remote", "--refs", url, `${prefix}*`], { timeoutMs: NETWORK_TIMEOUT_MS });
  if (r.exitCode !== 0) throw remoteError("reading the refs of", url, r);
  const refs = new Map<string, string>();
  for (const line of r.stdout.toString("utf8").split("\n")) {
    const [id, ref] = line.split("\t");
    if (id && ref?.startsWith(prefix)) refs.set(ref, id);
  }
  return refs;
}

/**
 * Fetch `refspecs` from `url` into the sync repository. `--prune` drops local refs under the
 * refspecs' destinations that the remote no longer has; `--refmap=` keeps git from updating any
 * other ref on the side; `--no-tags`: a session's refs are all it takes.
 */
export async function fetchRefs(
  repo: string,
  url: string,
  refspecs: string[],
  o: { prune: boolean; maxBlobBytes?: number; refetch?: boolean; keepRefsToLeftOut?: boolean },
): Promise<void> {
  // --filter: the server leaves out every blob over the size (a hostile 1 GiB one never travels);
  // a server without uploadpack.allowFilter ignores it with a warning and sends all (the size
  // checks on what arrived still refuse it). --refetch: the blobs a smaller limit left out, now wanted.
  const filter =
    o.maxBlobBytes === undefined
      ? []
      : [`--filter=blob:limit=${Math.floor(o.maxBlobBytes)}`, ...(o.refetch ? ["--refetch"] : [])];
  const before = await promisorMarks(repo);
  // A filtered fetch names the server by a remote's name, given for this run only: git records the
  // server as a promisor under that name, and a URL or a path cannot be one ("cannot begin with '/'").
  const from = filter.length ? ["-c", `remote.${FETCHING}.url=${url}`, "fetch"] : ["fetch"];
  const r = await spawnGit(
    repo,
    [
      ...from,
      "--quiet",
      "--no-tags",
      "--no-write-fetch-head",
      "--refmap=",
      ...filter,
      ...(o.prune ? ["--prune"] : []),
      filter.length ? FETCHING : url,
      ...refspecs,
    ],
    { timeoutMs: NETWORK_TIMEOUT_MS },
  );
  if (filter.length) await forgetPromisors(repo, before, o.keepRefsToLeftOut ?? false);
  if (r.exitCode !== 0) throw remoteError("fetching from", url, r);
}

async function promisorMarks(repo: string): Promise<Set<string>> {
  const names = await fs.readdir(path.join(repo, "objects", "pack")).catch(() => []);
  return new Set(names.filter((n) => n.endsWith(".promisor")));
}

const FETCHING = "nudge-fetching";

/**
 * A filtered fetch makes git remember the server as a "promisor" and fetch a missing blob from it
 * whenever one is read: the very download the filter kept out. Forgotten at once, so a blob left
 * out reads as missing (cat-file says so, ls-tree -l prints no size). The git version nudge
 * supports has no switch for that (GIT_NO_LAZY_FETCH came later). The pack's promisor mark goes
 * too, or git's gc would keep its objects for good, unless refs are kept that reach what was left
 * out (the cards: a gc then tells git those are meant to be missing).
 */
async function forgetPromisors(repo: string, before: Set<string>, keepMarks: boolean): Promise<void> {
  if (!keepMarks)
    for (const mark of await promisorMarks(repo))
      if (!before.has(mark)) await fs.rm(path.join(repo, "objects", "pack", mark), { force: true });
  // The only promisor git is told of (the gc's is given with -c, never written); absent, git says so and nothing changes.
  await spawnGit(repo, ["config", "--remove-section", `remote.${FETCHING}`]);
}

/**
 * For git's gc in the sync repository: a promisor that is never reachable, so the repack knows
 * blobs a filter left out are meant to be missing (without one it stops: "unable to read") and
 * fetches none of them.
 */
function noLazyPromisor(repo: string): string[] {
  return [
    "-c",
    "remote.nudge-no-lazy-fetch.promisor=true",
    "-c",
    `remote.nudge-no-lazy-fetch.url=${path.join(repo, "no-lazy-fetch.git")}`,
  ];
}

export interface PushUpdate {
  /** A commit id, or null to delete the ref. */
  commit: string | null;
  ref: string;
  /** --force-with-lease: the value the remote must still hold ("" = must not exist); null: a plain update (fast-forward only). */
  expect: string | null;
}

/** A refusal: each ref's reason as git's porcelain gives it ("[rejected] (stale info)", "[remote rejected] (unpacker error)"), and what the remote said besides. */
export type PushOutcome =
  { ok: true; bytes: number } | { ok: false; rejected: Array<{ ref: string; why: string }>; said: string };

/**
 * One atomic push (all refs or none). Leases make "replace only what I saw" exact even when
 * someone pushes in between. The bytes sent are counted from git's own report (`--progress`).
 */
export async function pushRefs(repo: string, url: string, updates: PushUpdate[]): Promise<PushOutcome> {
  const leases = updates.filter((u) => u.expect !== null).map((u) => `--force-with-lease=${u.ref}:${u.expect}`);
  const specs = updates.map((u) => `${u.commit ?? ""}:${u.ref}`);
  // followTags/recurseSubmodules off: what nudge pushes is these refs and what they reach, nothing of the user's.
  const args = [
    "-c",
    "push.followTags=false",
    "-c",
    "push.recurseSubmodules=no",
    "-c",
    "push.gpgSign=false",
    "push",
    "--atomic",
    "--porcelain",
    "--progress",
    "--no-verify",
    ...leases,
    url,
    ...specs,
  ];
  const r = await spawnGit(repo, args, { timeoutMs: NETWORK_TIMEOUT_MS });
  const rejected: Array<{ ref: string; why: string }> = [];
  for (const line of r.stdout.toString("utf8").split("\n")) {
    // "<flag>\t<from>:<to>\t<summary> (<reason>)"
    const m = /^([!])\t[^:]*:(\S+)\t(.*)$/.exec(line);
    if (m) rejected.push({ ref: m[2]!, why: m[3]! });
  }
  if (r.exitCode === 0) return { ok: true, bytes: sentBytes(r.stderr) };
  if (rejected.length)
    return {
      ok: false,
      rejected,
      said: gitSaid(
        r.stderr
          .split("\n")
          .filter((l) => !/failed to push some refs/.test(l))
          .join("\n"),
      ),
    };
  throw remoteError("pushing to", url, r);
}

/**
 * The commits of `commits` that the remote `remoteName` already holds, as the user's repository's
 * remote-tracking branches show it: pinning those sends no object (the server has them all).
 */
export async function heldByRemote(root: string, remoteName: string, commits: string[]): Promise<string[]> {
  const held: string[] = [];
  for (const commit of commits) {
    const r = await spawnGit(root, [
      "for-each-ref",
      "--count=1",
      "--contains",
      commit,
      "--format=%(refname)",
      `refs/remotes/${remoteName}/`,
    ]);
    if (r.exitCode === 0 && r.stdout.toString("utf8").trim() !== "") held.push(commit);
  }
  return held;
}

/**
 * Pin `pins` on the remote, pushed from the user's repository (the only one that holds these
 * commits): a push of commits the remote already has sends no object, and changes no ref of the
 * user's (the destinations are under refs/nudge/published/, which no fetch refspec maps back).
 */
export async function pushPins(
  root: string,
  url: string,
  pins: Array<{ commit: string; ref: string }>,
): Promise<PushOutcome> {
  return pushRefs(
    root,
    url,
    pins.map((p) => ({ commit: p.commit, ref: p.ref, expect: null })),
  );
}

/**
 * The objects of the remote's `refs` fetched into the user's repository, no ref written (no
 * FETCH_HEAD either): the code history a pinned commit needs, as `git fetch` of the code would
 * bring it, so a session whose branch was rewritten since it was published still imports.
 */
export async function fetchPinnedObjects(root: string, url: string, refs: string[]): Promise<void> {
  if (refs.length === 0) return;
  const r = await spawnGit(
    root,
    ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--refmap=", url, ...refs],
    { timeoutMs: NETWORK_TIMEOUT_MS },
  );
  if (r.exitCode !== 0) throw remoteError("fetching the commits a published session builds on from", url, r);
}

/** "Writing objects: 100% (3/3), 1.20 KiB | …": the size git reports for the pack it sent (0 when it sent none). */
function sentBytes(stderr: string): number {
  const line = stderr
    .split(/[\r\n]/)
    .filter((l) => l.startsWith("Writing objects:"))
    .at(-1);
  const m = line && /, ([\d.]+) (bytes|KiB|MiB|GiB)/.exec(line);
  if (!m) return 0;
  return Math.round(Number(m[1]) * { bytes: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 }[m[2] as "bytes"]);
}

/** What the sync repository holds loose and packed (`git count-objects -v`), to tell whether a gc has anything to do. */
export async function objectCounts(
  repo: string,
): Promise<{ loose: number; packs: number; garbage: number; bytes: number }> {
  const out = (await run(repo, ["count-objects", "-v"])).toString("utf8");
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(out)?.[1] ?? 0);
  return {
    loose: field("count"),
    packs: field("packs"),
    garbage: field("garbage"),
    bytes: (field("size") + field("size-pack") + field("size-garbage")) * 1024,
  };
}

/**
 * The sync repository cleaned: `refs` deleted (each only while it still points where the plan
 * saw it), then git's own gc with every object no ref reaches dropped at once. Safe only while
 * no nudge syncs (the caller holds the sync lock: a fetch or push writes objects before the ref
 * that reaches them); kill-safe as git gc is.
 */
export async function cleanSyncRepository(repo: string, refs: Array<{ ref: string; commit: string }>): Promise<void> {
  if (refs.length)
    await run(repo, ["update-ref", "--stdin"], { input: refs.map((r) => `delete ${r.ref} ${r.commit}\n`).join("") });
  // Only where a ref still reaches a blob a filter left out (a hostile card over its limit): a
  // promisor's gc keeps every object of a filtered fetch's pack, so it is not the usual gc.
  const missing = (await run(repo, ["rev-list", "--all", "--objects", "--missing=print"]))
    .toString("utf8")
    .includes("\n?");
  await run(repo, [...(missing ? noLazyPromisor(repo) : []), "gc", "--quiet", "--prune=now"]);
}

/** Refs of the sync repository under `prefix`, with what they point at. */
export async function localRefs(repo: string, prefix: string): Promise<Map<string, string>> {
  const out = await run(repo, ["for-each-ref", "--format=%(objectname) %(refname)", prefix]);
  const refs = new Map<string, string>();
  for (const line of out.toString("utf8").split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space));
  }
  return refs;
}

export async function setRefs(repo: string, updates: Array<{ ref: string; commit: string | null }>): Promise<void> {
  if (updates.length === 0) return;
  const input = updates.map((u) => (u.commit ? `update ${u.ref} ${u.commit}\n` : `delete ${u.ref}\n`)).join("");
  await run(repo, ["update-ref", "--stdin"], { input });
}

/** A file's bytes as a blob of the sync repository (streamed by git, never read whole here). */
export async function writeBlobFile(repo: string, file: string): Promise<string> {
  return (await run(repo, ["hash-object", "-w", "--no-filters", "--", file])).toString("utf8").trim();
}

export async function writeBlob(repo: string, content: Buffer): Promise<string> {
  return (await run(repo, ["hash-object", "-w", "--no-filters", "--stdin"], { input: content }))
    .toString("utf8")
    .trim();
}

/** A tree of regular files (name → blob). */
export async function writeTree(repo: string, files: Array<{ name: string; blob: string }>): Promise<string> {
  const input = files.map((f) => `100644 blob ${f.blob}\t${f.name}\n`).join("");
  return (await run(repo, ["mktree"], { input })).toString("utf8").trim();
}

/** A commit by nudge (fixed identity: the author of a session is in its card, not in git's fields). */
export async function commitTree(repo: string, tree: string, parents: string[], message: string): Promise<string> {
  const args = ["commit-tree", "--no-gpg-sign", tree, ...parents.flatMap((p) => ["-p", p])];
  const r = await spawnGit(repo, args, {
    input: message,
    env: {
      GIT_AUTHOR_NAME: "nudge",
      GIT_AUTHOR_EMAIL: "nudge@localhost",
      GIT_COMMITTER_NAME: "nudge",
      GIT_COMMITTER_EMAIL: "nudge@localhost",
    },
  });
  if (r.exitCode !== 0) throw new InternalError(`git commit-tree failed: ${r.stderr}`);
  return r.stdout.toString("utf8").trim();
}

export interface TreeEntry {
  mode: string;
  type: string;
  id: string;
  size: number | null;
  name: string;
}

/** A commit's tree, entry by entry, with each blob's size (read before any content is). */
export async function treeEntries(repo: string, commit: string): Promise<TreeEntry[]> {
  const r = await spawnGit(repo, ["ls-tree", "-l", "-z", commit]);
  if (r.exitCode !== 0) throw new InternalError(`git ls-tree failed: ${r.stderr}`);
  return r.stdout
    .toString("utf8")
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf("\t");
      const [mode, type, id, size] = line.slice(0, tab).split(/ +/);
      // "-" for a tree; "BAD" for a blob a filtered fetch left out (not here).
      return {
        mode: mode!,
        type: type!,
        id: id!,
        size: size && /^\d+$/.test(size) ? Number(size) : null,
        name: line.slice(tab + 1),
      };
    });
}

/** A blob written to `file` by git itself (`cat-file blob`, streamed to the file: never held in memory). */
export async function blobToFile(repo: string, blob: string, file: string): Promise<void> {
  const handle = await fs.open(file, "wx", 0o600);
  try {
    await new Promise<void>((resolve, reject) => {
      const c = gitChildOptions(repo, ["cat-file", "blob", blob], { internal: true, unset: REPOSITORY_ENV });
      const child = spawn("git", c.args, { cwd: repo, env: c.env, stdio: ["ignore", handle.fd, "pipe"] });
      let err = "";
      child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0 ? resolve() : reject(new InternalError(`git cat-file blob failed: ${err.trim()}`)),
      );
    });
  } finally {
    await handle.close();
  }
}

/**
 * Small blobs named `<rev>:<path>` read in one `cat-file --batch`: their content, or null for one
 * that is missing, not a blob, or over `maxBytes` (its size is looked at first, so nothing large is read).
 */
export async function readSmallBlobs(repo: string, names: string[], maxBytes: number): Promise<Array<Buffer | null>> {
  if (names.length === 0) return [];
  const check = (
    await run(repo, ["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"], {
      input: names.join("\n") + "\n",
    })
  )
    .toString("utf8")
    .split("\n");
  const ids = names.map((_, i) => {
    const [id, type, size] = (check[i] ?? "").split(" ");
    return type === "blob" && Number(size) <= maxBytes ? id! : null;
  });
  const wanted = ids.filter((id): id is string => id !== null);
  const contents = new Map<string, Buffer>();
  if (wanted.length) {
    const out = await run(repo, ["cat-file", "--batch"], { input: wanted.join("\n") + "\n" });
    let at = 0;
    while (at < out.length) {
      const nl = out.indexOf(10, at);
      const [id, , size] = out.subarray(at, nl).toString("utf8").split(" ");
      const n = Number(size);
      contents.set(id!, out.subarray(nl + 1, nl + 1 + n));
      at = nl + 1 + n + 1;
    }
  }
  return ids.map((id) => (id === null ? null : (contents.get(id) ?? null)));
}

/** A commit's message (its body after the header). */
export async function commitMessage(repo: string, commit: string): Promise<string> {
  const r = await spawnGit(repo, ["cat-file", "commit", commit]);
  if (r.exitCode !== 0) return "";
  const text = r.stdout.toString("utf8");
  const blank = text.indexOf("\n\n");
  return blank < 0 ? "" : text.slice(blank + 2);
}

/** A scratch repository with a work tree (what a store needs) that reads `borrowFrom`'s objects and never writes them. */
export async function borrowingRepository(
  dir: string,
  objectFormat: "sha1" | "sha256",
  borrowFrom: string,
): Promise<void> {
  await fs.mkdir(path.dirname(dir), { recursive: true });
  await run(path.dirname(dir), ["init", "-q", `--object-format=${objectFormat}`, dir]);
  await fs.writeFile(path.join(dir, ".git", "objects", "info", "alternates"), path.join(borrowFrom, "objects") + "\n");
}

/** Where git looks for the repository's hooks (core.hooksPath respected), absolute. */
export async function hooksDir(root: string): Promise<string> {
  // As the user's git sees it: core.hooksPath is not switched off for this one question.
  const r = await spawnGit(root, ["rev-parse", "--path-format=absolute", "--git-path", "hooks"], {
    asConfigured: true,
  });
  if (r.exitCode !== 0) throw new InternalError(`git rev-parse --git-path hooks failed: ${r.stderr}`);
  return path.resolve(root, r.stdout.toString("utf8").trim());
}
