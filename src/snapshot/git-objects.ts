/**
 * Git objects read one by one, for what an export must look at beyond the session's own changes:
 * every object the git bundle packs from history it carries (a base commit on no remote, the
 * commits before it, a commit Claude made and nobody pushed). Kept apart from git.ts, whose
 * calls buffer their whole output: these stream (`cat-file --batch` is read as it comes, so a
 * history of thousands of files costs what one batch of them does).
 */
import { spawn } from "node:child_process";
import { InternalError } from "../base/errors.js";
import { gitChildOptions } from "./git-process.js";

export interface PackedObject {
  id: string;
  type: "commit" | "tree" | "blob" | "tag";
  size: number;
}

/** A read-only git process (no hooks, no lock on the user's index). */
function spawnReader(cwd: string, args: string[]) {
  const c = gitChildOptions(cwd, args, { internal: true });
  return spawn("git", c.args, { cwd, env: c.env, stdio: ["pipe", "pipe", "pipe"] });
}

/**
 * The objects a bundle of `commits` made against the remote-tracking branches packs, in the
 * order of git's walk (a tree before what it holds): `git bundle create` walks the same
 * revisions (`<commits> --not --remotes`, as createBundle in git.ts), so this is its pack's
 * object list. None when every commit is on a remote-tracking branch.
 */
export async function packedObjects(root: string, commits: string[]): Promise<PackedObject[]> {
  if (commits.length === 0) return [];
  // --no-object-names: a path may hold a newline; the names come from the trees themselves.
  // The commits are few (the base and the HEADs recorded): on the command line, as git 2.39's
  // --stdin takes no --not.
  const ids = (await output(root, ["rev-list", "--objects", "--no-object-names", ...commits, "--not", "--remotes"], ""))
    .toString("latin1")
    .split("\n")
    .filter(Boolean);
  if (ids.length === 0) return [];
  const checked = (await output(root, ["cat-file", "--batch-check"], ids.join("\n") + "\n"))
    .toString("latin1")
    .split("\n")
    .filter(Boolean);
  return checked.map((line) => {
    const [id, type, size] = line.split(" "); // "<id> <type> <size>"
    if (!id || !size || !["commit", "tree", "blob", "tag"].includes(type ?? ""))
      throw new InternalError(`git cat-file --batch-check answered "${line}"`);
    return { id, type: type as PackedObject["type"], size: Number(size) };
  });
}

/** Which of `commits` no remote-tracking branch reaches (the ones a bundle carries). */
export async function unreachedFromRemotes(root: string, commits: string[]): Promise<Set<string>> {
  if (commits.length === 0) return new Set();
  const out = await output(root, ["rev-list", ...commits, "--not", "--remotes"], "");
  const reached = new Set(out.toString("latin1").split("\n"));
  return new Set(commits.filter((c) => reached.has(c)));
}

/**
 * Each object's content, in the order asked, handed over as it is read (one `cat-file --batch`
 * process; `use` is awaited before more is read, so memory holds about one object at a time).
 */
export async function eachObject(
  root: string,
  ids: string[],
  use: (id: string, type: string, content: Buffer) => Promise<void> | void,
): Promise<void> {
  if (ids.length === 0) return;
  const child = spawnReader(root, ["cat-file", "--batch"]);
  const exited = new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? -1));
  });
  const stderr: Buffer[] = [];
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  child.stdin.on("error", () => undefined); // git may stop reading on an error it reports itself
  child.stdin.end(ids.join("\n") + "\n");
  let pending: Buffer = Buffer.alloc(0);
  let next = 0;
  try {
    for await (const chunk of child.stdout) {
      pending = pending.length ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
      for (;;) {
        const headerEnd = pending.indexOf(0x0a);
        if (headerEnd === -1) break;
        const [id, type, size] = pending.toString("latin1", 0, headerEnd).split(" "); // "<id> <type> <size>", or "<id> missing"
        if (!id || !type || size === undefined)
          throw new InternalError(`git cat-file --batch: ${ids[next]} is missing`);
        const end = headerEnd + 1 + Number(size);
        if (pending.length < end + 1) break;
        await use(id, type, pending.subarray(headerEnd + 1, end));
        next++;
        pending = pending.subarray(end + 1);
      }
    }
  } finally {
    if (next < ids.length) child.kill();
  }
  const code = await exited;
  if (next < ids.length || code !== 0)
    throw new InternalError(
      `git cat-file --batch stopped after ${next} of ${ids.length} objects (exit ${code}): ${Buffer.concat(stderr).toString("utf8").trim()}`,
    );
}

export interface TreeEntry {
  mode: string;
  /** The name as UTF-8 (what a person reads; a name that is not UTF-8 gets replacement characters). */
  name: string;
  id: string;
}

/** A tree object's entries: `<mode> <name>\0<id as raw bytes>` each; `idBytes` is 20 (SHA-1) or 32 (SHA-256). */
export function treeEntries(content: Buffer, idBytes: number): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (let at = 0; at < content.length;) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space);
    if (space === -1 || nul === -1 || nul + 1 + idBytes > content.length)
      throw new InternalError("a tree object git gave could not be read");
    entries.push({
      mode: content.toString("latin1", at, space),
      name: content.toString("utf8", space + 1, nul),
      id: content.toString("hex", nul + 1, nul + 1 + idBytes),
    });
    at = nul + 1 + idBytes;
  }
  return entries;
}

/** One read-only git process's stdout, all of it (its input given). */
function output(cwd: string, args: string[], input: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawnReader(cwd, args);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else
        reject(
          new InternalError(`git ${args[0]} failed (exit ${code}): ${Buffer.concat(err).toString("utf8").trim()}`),
        );
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
  });
}
