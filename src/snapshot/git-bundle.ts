/**
 * Git bundles and the commits of an exported session, for `nudge session export` / `import`. A
 * bundle is thin against what a teammate's clone can be expected to have: everything reachable
 * from remote-tracking branches.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UserError, InternalError } from "../base/errors.js";
import { spawn } from "node:child_process";
import { answer, gitChildOptions, run, text } from "./git-process.js";

/** The git dir shared by all worktrees, whose objects a scratch repository borrows. */
async function commonDir(root: string): Promise<string> {
  return (await location(root)).commonDir;
}

const locations = new Map<string, Promise<{ commonDir: string; format: "sha1" | "sha256" }>>();

/** A repository's common git dir and hash, asked once per process (neither changes while nudge runs). */
function location(root: string): Promise<{ commonDir: string; format: "sha1" | "sha256" }> {
  let known = locations.get(root);
  if (!known) {
    known = text(root, ["rev-parse", "--path-format=absolute", "--git-common-dir", "--show-object-format"]).then(
      (out) => {
        const [dir, format] = out.split("\n");
        return { commonDir: dir!, format: format === "sha256" ? "sha256" : "sha1" };
      },
    );
    known.catch(() => locations.delete(root));
    locations.set(root, known);
  }
  return known;
}

export interface BundleHeader {
  /** Commits the bundle's objects build on: the receiving repository must have them. */
  prerequisites: string[];
  /** The refs the bundle carries, as named when it was made. */
  heads: Array<{ ref: string; commit: string }>;
}

export interface CreatedBundle extends BundleHeader {
  /** Each prerequisite with a remote-tracking branch that holds it, for an importer's `git fetch` hint. */
  prerequisiteRemotes: Array<{ commit: string; remoteRef: string | null }>;
  /** Those of `reach` on no remote-tracking branch: the bundle carries them (and what they need) as heads. */
  carried: Array<{ ref: string; commit: string }>;
}

/**
 * Bundle `tips` (ref name → commit; the names are what the bundle's header calls them) without
 * the history every remote-tracking branch already reaches. A commit of `reach` (the base commit,
 * HEADs recorded during the session) that no remote-tracking branch reaches is carried too, with
 * what it needs, under its ref, and reported in `carried`: a clone that never saw it still imports.
 *
 * Nothing is written to the repository: the refs a bundle needs live in a scratch repository
 * that borrows this one's objects (objects/info/alternates). Blobs are packed once however many
 * snapshots hold them, and deltified against each other.
 */
export async function createBundle(
  root: string,
  file: string,
  tips: Array<{ ref: string; commit: string }>,
  reach: Array<{ ref: string; commit: string }> = [],
  scratchParent?: string,
): Promise<CreatedBundle> {
  file = path.resolve(file); // git runs in the scratch repository
  return withScratchRepository(root, scratchParent, async (scratch) => {
    const remotes = (await text(root, ["for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes"]))
      .split("\n")
      .filter(Boolean);
    const own = [...tips, ...reach];
    const updates = [
      ...own.map((t) => `create ${t.ref} ${t.commit}\n`),
      ...remotes.map((line) => `create ${line.split(" ")[1]} ${line.split(" ")[0]}\n`),
    ];
    await run(scratch, ["update-ref", "--stdin"], { input: updates.join(""), internal: true });
    const unreached = reach.length
      ? new Set((await text(scratch, ["rev-list", ...reach.map((r) => r.ref), "--not", "--remotes"])).split("\n"))
      : new Set<string>();
    const carried = reach.filter((r) => unreached.has(r.commit));
    const revs = [...tips, ...carried].map((t) => t.ref);
    // --stdin takes revisions, not options like --remotes: the remote-tracking tips go as ^<ref>.
    const exclude = remotes.map((line) => `^${line.split(" ")[1]}`);
    // One thread: pack-objects' delta search split over threads can pick other bases run to run,
    // and an export must be the same bytes every time.
    await run(scratch, ["-c", "pack.threads=1", "bundle", "create", "--quiet", file, "--stdin"], {
      input: [...revs, ...exclude].join("\n") + "\n",
      internal: true,
    });
    const header = await readBundleHeader(file);
    const prerequisiteRemotes = [];
    for (const commit of header.prerequisites) {
      // Any remote-tracking branch holding it but origin/HEAD, which only names another.
      const holders = (
        await text(root, ["for-each-ref", "--contains", commit, "--format=%(symref)|%(refname:short)", "refs/remotes"])
      ).split("\n");
      const holder = holders.find((h) => h.startsWith("|"))?.slice(1) ?? null;
      prerequisiteRemotes.push({ commit, remoteRef: holder });
    }
    return { ...header, prerequisiteRemotes, carried };
  });
}

/**
 * A bare repository in a temp dir that sees every object of `root` (objects/info/alternates) and
 * whose refs and new objects are its own: work that must not write into the user's repository.
 */
async function withScratchRepository<T>(
  root: string,
  parent: string | undefined,
  use: (scratch: string) => Promise<T>,
): Promise<T> {
  const scratch = await makeScratch(root, parent);
  try {
    return await use(scratch);
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** `withScratchRepository`'s repository, made while `first` runs (both settled before either's failure is told, `first`'s first). */
async function withScratchAfter<F, T>(
  root: string,
  parent: string | undefined,
  first: Promise<F>,
  use: (scratch: string, first: F) => Promise<T>,
): Promise<T> {
  const [before, made] = await Promise.allSettled([first, makeScratch(root, parent)]);
  if (made.status === "fulfilled") {
    try {
      if (before.status === "rejected") throw before.reason;
      return await use(made.value, before.value);
    } finally {
      await fs.rm(made.value, { recursive: true, force: true });
    }
  }
  if (before.status === "rejected") throw before.reason;
  throw made.reason;
}

/**
 * `parent`: a command's work folder in the store, so a kill leaves nothing in the OS's temp dir.
 * No template: git's sample hooks (or the user's init.templateDir) have no use in it.
 */
async function makeScratch(root: string, parent: string | undefined): Promise<string> {
  const scratch = await fs.mkdtemp(path.join(parent ?? os.tmpdir(), "nudge-git-"));
  try {
    await run(scratch, [
      "init",
      "--quiet",
      "--bare",
      "--template=",
      `--object-format=${await objectFormat(root)}`,
      ".",
    ]);
    await fs.writeFile(
      path.join(scratch, "objects", "info", "alternates"),
      path.join(await commonDir(root), "objects") + "\n",
    );
    return scratch;
  } catch (error) {
    await fs.rm(scratch, { recursive: true, force: true });
    throw error;
  }
}

/** The repository's hash: "sha1" or "sha256" (an export records it; a clone must match). */
export async function objectFormat(root: string): Promise<"sha1" | "sha256"> {
  return (await location(root)).format;
}

/** The root commits (no parents) of `commit`'s history, at most `max`: what tells one project's history from another's. */
export async function rootCommits(root: string, commit: string, max: number): Promise<string[]> {
  const out = await text(root, ["rev-list", "--max-parents=0", `--max-count=${max}`, commit]);
  return out ? out.split("\n") : [];
}

/** A shallow clone lacks its history's root commits although it is the same project. */
export async function isShallow(root: string): Promise<boolean> {
  return (await text(root, ["rev-parse", "--is-shallow-repository"])) === "true";
}

/** Who is exporting, as git knows them (user.name, user.email), each null when unset. */
export async function userIdentity(root: string): Promise<{ name: string | null; email: string | null }> {
  return { name: await answer(root, ["config", "user.name"]), email: await answer(root, ["config", "user.email"]) };
}

/** A bundle's header (v2 or v3), read without git: its prerequisites and its refs. */
export async function readBundleHeader(file: string): Promise<BundleHeader> {
  const handle = await fs.open(file, "r");
  let head: string;
  try {
    // The header is text up to the first empty line; a bundle of a session has a few dozen refs.
    const buffer = Buffer.alloc(4 * 1024 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, bytesRead).indexOf("\n\n");
    head = end === -1 ? "" : buffer.toString("utf8", 0, end);
  } finally {
    await handle.close();
  }
  const [signature, ...lines] = head.split("\n");
  if (signature !== "# v2 git bundle" && signature !== "# v3 git bundle") throw new DamagedBundle("not a git bundle");
  const header: BundleHeader = { prerequisites: [], heads: [] };
  for (const line of lines) {
    if (line.startsWith("@")) continue; // v3 capabilities (@object-format=…)
    const prerequisite = /^-([0-9a-f]{40}|[0-9a-f]{64})(?: .*)?$/.exec(line);
    const head = /^([0-9a-f]{40}|[0-9a-f]{64}) (refs\/[^\s]+)$/.exec(line);
    if (prerequisite) header.prerequisites.push(prerequisite[1]!);
    else if (head) header.heads.push({ commit: head[1]!, ref: head[2]! });
    else throw new DamagedBundle("its header is damaged");
  }
  return header;
}

/** The prerequisites of a bundle this repository lacks (an import must stop before touching anything). */
async function missingPrerequisites(root: string, header: BundleHeader): Promise<string[]> {
  if (header.prerequisites.length === 0) return [];
  // One `cat-file --batch-check` for them all: a line per name asked, "<name> missing" for one not here.
  const out = await text(root, ["cat-file", "--batch-check"], {
    input: header.prerequisites.map((c) => `${c}^{commit}\n`).join(""),
  });
  const lines = out.split("\n");
  return header.prerequisites.filter((_, i) => lines[i] === undefined || lines[i]!.endsWith(" missing"));
}

/**
 * What `git bundle verify` checks: the header is sound and this repository has every
 * prerequisite. `remotes` (from the exporter's `prerequisiteRemotes`) names the branch a missing
 * commit is probably on. git's own `bundle verify` is not run: `bundle unbundle` makes the same
 * checks before it writes anything (checkBundle runs it in a scratch repository), and a process
 * saved is ~5–10 ms of every import.
 */
async function verifyBundle(
  root: string,
  file: string,
  remotes: Array<{ commit: string; remoteRef: string | null }> = [],
): Promise<BundleHeader> {
  const header = await readBundleHeader(file);
  const missing = await missingPrerequisites(root, header);
  if (missing.length) {
    const where = (commit: string) => remotes.find((r) => r.commit === commit)?.remoteRef;
    const named = missing.map((c) => (where(c) ? `${c} (on ${where(c)} where it was exported)` : c)).join(", ");
    const branch = missing.map(where).find(Boolean);
    throw new UserError(
      `this repository lacks commit ${named}, which the session's code builds on`,
      branch
        ? `fetch it: git fetch ${branch.split("/")[0]} ${branch.split("/").slice(1).join("/")}, then import again`
        : "fetch it (git fetch), then import again",
    );
  }
  return header;
}

/**
 * Put a bundle's objects into the repository and point new refs at its heads (`from` a ref in
 * the bundle, `to` a ref that must not exist yet), in one transaction: no branch, HEAD, index or
 * work tree is touched. Everything is checked first (`checkBundle`): a damaged bundle leaves
 * nothing in the repository, not even a half-written pack. `beforeWriting` runs in the scratch
 * repository with the bundle's objects in place (an importer applies its patches there and
 * compares trees): if it throws, nothing was written.
 */
export async function unbundle(
  root: string,
  file: string,
  refs: Array<{ from: string; to: string }>,
  remotes: Array<{ commit: string; remoteRef: string | null }> = [],
  beforeWriting?: (scratch: string) => Promise<void>,
): Promise<void> {
  const { commits } = await checkBundle(
    root,
    file,
    refs.map((r) => r.from),
    remotes,
    beforeWriting,
  );
  await installBundle(
    root,
    file,
    refs.map((r, i) => ({ ref: r.to, commit: commits[i]! })),
  );
}

/**
 * Everything `unbundle` checks, and nothing written to `root`: the prerequisites are here, and in
 * a scratch repository that borrows this one's objects, index-pack hashes every object and the
 * history of `heads` (refs named in the bundle) is complete. `inScratch` runs there last, with
 * the bundle's objects in place. Returns the commit of each of `heads`.
 */
export async function checkBundle(
  root: string,
  file: string,
  heads: string[],
  remotes: Array<{ commit: string; remoteRef: string | null }> = [],
  inScratch?: (scratch: string) => Promise<void>,
  scratchParent?: string,
  /** A folder (on the repository's disk, ideally) to keep the checked pack in, for `installBundle` to move into place instead of unbundling again. */
  keepPackIn?: string,
): Promise<{ header: BundleHeader; commits: string[]; pack: string[] | null }> {
  file = path.resolve(file); // git runs in the scratch repository too
  const damaged = (stderr: string) => {
    const line = stderr.split("\n").find((l) => /^(fatal|error): /.test(l)) ?? stderr.split("\n").at(-1) ?? "";
    return new DamagedBundle(`git: ${line.replace(/^(fatal|error): /, "")}`);
  };
  // The scratch repository is made while the bundle's header and prerequisites are checked.
  return withScratchAfter(root, scratchParent, verifyBundle(root, file, remotes), async (scratch, header) => {
    const commits = heads.map((ref) => {
      const head = header.heads.find((h) => h.ref === ref);
      if (!head)
        throw new UserError(`the export's git bundle has no ${ref}`, "the export is damaged; ask for a fresh export");
      return head.commit;
    });
    await run(scratch, ["bundle", "unbundle", file], { internal: true, explain: damaged });
    // The history's completeness is checked while `inScratch` reads it; a gap is told before whatever it made `inScratch` fail.
    const [complete, checked] = await Promise.allSettled([
      run(scratch, ["rev-list", "--objects", "--quiet", ...commits, "--not", ...header.prerequisites], {
        explain: damaged,
      }),
      inScratch?.(scratch),
    ]);
    if (complete.status === "rejected") throw complete.reason;
    if (checked.status === "rejected") throw checked.reason;
    const pack = keepPackIn ? await keepPack(scratch, keepPackIn) : null;
    return { header, commits, pack };
  });
}

/** A bundle found damaged, by its header or by git unbundling it (`why`: "git: " and git's own words). */
export class DamagedBundle extends UserError {
  constructor(readonly why: string) {
    super(`the export's git bundle is damaged (${why})`, "ask for a fresh export");
  }
}

/**
 * The pack `bundle unbundle` wrote in the scratch repository, moved out before it is removed.
 * index-pack made it whole (--fix-thin: the bases it borrowed from the repository are in it), and
 * every object in it was hashed and the history checked: the very pack a second unbundle into
 * the repository would write.
 */
async function keepPack(scratch: string, dir: string): Promise<string[] | null> {
  const packDir = path.join(scratch, "objects", "pack");
  const names = (await fs.readdir(packDir)).filter((n) => /^pack-[0-9a-f]+\.(pack|idx|rev)$/.test(n));
  if (!names.some((n) => n.endsWith(".pack")) || !names.some((n) => n.endsWith(".idx"))) return null; // nothing packed (an empty bundle)
  await fs.mkdir(dir, { recursive: true });
  const kept: string[] = [];
  for (const name of names) {
    await fs.rename(path.join(packDir, name), path.join(dir, name));
    kept.push(path.join(dir, name));
  }
  return kept;
}

/**
 * After `checkBundle`: the bundle's objects into the repository, and `refs` (none may exist yet)
 * created in one transaction. `pack`: the pack `checkBundle` kept, moved into the repository's
 * pack folder (the index last: git uses a pack once its index is there); without it, unbundled again.
 */
export async function installBundle(
  root: string,
  file: string,
  refs: Array<{ ref: string; commit: string }>,
  pack: string[] | null = null,
): Promise<void> {
  if (pack) {
    const packDir = path.join(await commonDir(root), "objects", "pack");
    await fs.mkdir(packDir, { recursive: true });
    const order = (name: string) => (name.endsWith(".pack") ? 0 : name.endsWith(".rev") ? 1 : 2);
    for (const from of [...pack].sort((a, b) => order(a) - order(b)))
      await moveFile(from, path.join(packDir, path.basename(from)));
  } else {
    await run(root, ["bundle", "unbundle", path.resolve(file)], { internal: true });
  }
  await run(root, ["update-ref", "--stdin"], {
    input: refs.map((r) => `create ${r.ref} ${r.commit}\n`).join(""),
    internal: true,
  });
}

/** A rename, or (another disk: a store outside the repository) a copy under a temp name renamed into place. */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await fs.rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    const temp = `${to}.${process.pid}.tmp`;
    await fs.copyFile(from, temp);
    await fs.rename(temp, to);
    await fs.rm(from, { force: true });
  }
}

/** The tree `patch` makes of `tree`, computed in a private index (nothing else is touched); a UserError when it does not apply. */
export async function applyToTree(root: string, indexFile: string, tree: string, patch: Buffer): Promise<string> {
  await run(root, ["read-tree", tree], { indexFile });
  if (patch.length > 0) {
    await run(root, ["apply", "--cached", "--whitespace=nowarn", "-"], {
      indexFile,
      input: patch,
      explain: (stderr) =>
        new UserError(
          `a patch in the export does not apply: ${stderr.split("\n")[0]}`,
          "the export is damaged or does not match this repository; ask for a fresh export",
        ),
    });
  }
  return text(root, ["write-tree"], { indexFile });
}

export interface ChainCommit {
  commit: string;
  tree: string;
  parents: string[];
  /** git's raw dates, "<epoch> <zone>": what a copy of the commit needs to keep them. */
  authorDate: string;
  committerDate: string;
  message: string;
}

/** The commits reachable from `tip` but not from `stop`, parents before children, with all a copy needs. */
export async function commitChain(root: string, tip: string, stop: string | null): Promise<ChainCommit[]> {
  // NUL cannot occur in a commit message (git refuses it), so it separates the fields.
  const out = await run(root, [
    "rev-list",
    "--reverse",
    "--topo-order",
    "--date=raw",
    "--format=%T%x00%P%x00%ad%x00%cd%x00%B%x00",
    tip,
    ...(stop ? [`^${stop}`] : []),
  ]);
  const chain: ChainCommit[] = [];
  const record = /commit ([0-9a-f]+)\n([0-9a-f]+)\0([0-9a-f ]*)\0([^\0]*)\0([^\0]*)\0([^\0]*)\0\n/g;
  for (const m of out.toString("utf8").matchAll(record)) {
    chain.push({
      commit: m[1]!,
      tree: m[2]!,
      parents: m[3] ? m[3].split(" ") : [],
      authorDate: m[4]!,
      committerDate: m[5]!,
      message: m[6]!,
    });
  }
  return chain;
}

/**
 * The patch `diffTrees` makes for each pair of trees, in one git process (`diff-tree --stdin`):
 * an importer compares them with the patches it was handed instead of applying each one.
 */
export async function diffTreePairs(root: string, pairs: Array<[string, string]>): Promise<Buffer[]> {
  if (pairs.length === 0) return [];
  const out = await run(root, ["diff-tree", "--stdin", "-r", "-p", "--full-index", "-M", "--no-color"], {
    input: pairs.map(([a, b]) => `${a} ${b}\n`).join(""),
  });
  // git echoes each input line, then its patch (nothing for equal trees). A patch line never is two bare ids.
  const bounds: Array<{ from: number; to: number }> = [];
  let next = 0;
  for (let start = 0; start < out.length && next < pairs.length;) {
    const end = out.indexOf(0x0a, start);
    const stop = end === -1 ? out.length : end + 1;
    if (out.toString("latin1", start, stop) === `${pairs[next]![0]} ${pairs[next]![1]}\n`) {
      if (bounds.length) bounds.at(-1)!.to = start;
      bounds.push({ from: stop, to: out.length });
      next++;
    }
    start = stop;
  }
  if (bounds.length !== pairs.length)
    throw new InternalError(`git diff-tree --stdin answered ${bounds.length} of ${pairs.length} pairs`);
  return bounds.map((b) => out.subarray(b.from, b.to));
}

/**
 * Whether `git diff-tree -p` between two trees (as diffTreePairs runs it) gives exactly the bytes
 * of `file`: compared as git writes them, never held (a patch can be tens of MB).
 */
export async function diffTreeEquals(root: string, from: string, to: string, file: string): Promise<boolean> {
  const handle = await fs.open(file, "r");
  const c = gitChildOptions(root, ["diff-tree", "-r", "-p", "--full-index", "-M", "--no-color", from, to]);
  const child = spawn("git", c.args, { cwd: root, env: c.env, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4096)));
  let at = 0;
  let same = true;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      const mine = Buffer.allocUnsafe(chunk.length);
      const { bytesRead } = await handle.read(mine, 0, chunk.length, at);
      at += chunk.length;
      if (bytesRead !== chunk.length || !mine.equals(chunk)) {
        same = false;
        break;
      }
    }
    if (!same) child.kill();
    const code = await exited;
    if (same && code !== 0) throw new InternalError(`git diff-tree failed (exit ${code}): ${stderr.trim()}`);
    return same && at === (await handle.stat()).size;
  } finally {
    await handle.close();
  }
}

/**
 * New commits that are copies of existing ones, with another message where one is given
 * (everything else — tree, author, committer, dates — kept). `parents` are the original's; one
 * copied in the same batch (they come first) becomes its copy. Read in one `cat-file --batch`,
 * written in one `hash-object -w`: the same copies always give the same ids. Returns the new ids.
 */
export async function copyCommits(
  root: string,
  copies: Array<{ commit: string; parents: string[]; message?: string }>,
): Promise<string[]> {
  if (copies.length === 0) return [];
  const format = await objectFormat(root);
  const raw = await run(root, ["cat-file", "--batch"], { input: copies.map((c) => `${c.commit}\n`).join("") });
  const objects: Buffer[] = [];
  const ids: string[] = [];
  const copied = new Map<string, string>();
  let at = 0;
  for (const c of copies) {
    const headerEnd = raw.indexOf(0x0a, at);
    const [, type, size] = raw.toString("utf8", at, headerEnd).split(" ");
    if (type !== "commit") throw new InternalError(`${c.commit} is not a commit`);
    const body = raw.toString("utf8", headerEnd + 1, headerEnd + 1 + Number(size));
    at = headerEnd + 1 + Number(size) + 1;
    const split = body.indexOf("\n\n");
    const headers = body
      .slice(0, split)
      .split("\n")
      .filter((line) => !line.startsWith("parent "));
    // A parent copied in this batch is named by its copy (parents come first, so its id is known).
    headers.splice(1, 0, ...c.parents.map((p) => `parent ${copied.get(p) ?? p}`)); // right after "tree …", as git writes them
    const object = Buffer.from(`${headers.join("\n")}\n\n${c.message ?? body.slice(split + 2)}`);
    const id = createHash(format).update(`commit ${object.length}\0`).update(object).digest("hex");
    objects.push(object);
    ids.push(id);
    copied.set(c.commit, id);
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "nudge-commits-"));
  try {
    const files = await Promise.all(
      objects.map(async (o, i) => {
        const file = path.join(dir, String(i));
        await fs.writeFile(file, o);
        return file;
      }),
    );
    const written = (
      await text(root, ["hash-object", "-t", "commit", "-w", "--stdin-paths"], { input: files.join("\n") + "\n" })
    ).split("\n");
    if (written.join() !== ids.join()) throw new InternalError("git hashed the copied commits differently");
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
  return ids;
}

/** Move refs in one transaction, each only if it still points where it was seen (an import's --force sets a session aside). */
export async function moveRefs(
  root: string,
  moves: Array<{ from: string; to: string; commit: string }>,
): Promise<void> {
  if (moves.length === 0) return;
  await run(root, ["update-ref", "--stdin"], {
    input: moves.map((m) => `create ${m.to} ${m.commit}\ndelete ${m.from} ${m.commit}\n`).join(""),
    internal: true,
  });
}
