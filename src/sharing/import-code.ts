/**
 * The code of an imported session, checked before anything is written to the repository: the
 * hash matches, the bundle verifies and holds every snapshot, the clone has what the bundle is
 * thin against, and, in a scratch repository that borrows this one's objects with the bundle's
 * objects added, every snapshot commit holds the tree its turn recorded and every patch, applied
 * in order onto the base commit, reproduces it. Only then are the objects and refs written.
 */
import { promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { turnSteps } from "../store/manifest-schema.js";
import * as git from "../snapshot/git.js";
import { sessionRef } from "../snapshot/snapshotter.js";
import { BUNDLE_BASE, BUNDLE_TIP } from "./export-plan.js";
import type { ExportContents } from "./import-contents.js";
import { Refusal } from "./limits.js";

export interface CodeRefs {
  /** Bundle head → the ref the import creates, and the commit it points at. */
  refs: Array<{ from: string; ref: string; commit: string }>;
}

/** A patch over this many bytes is checked against git's diff as it streams, never held with the others. */
const LARGE_PATCH = 8 << 20;

/** A damaged git bundle, refused as every other damage in the archive is (its path is the import's own, not said). */
function refusalOf(error: unknown): unknown {
  return error instanceof git.DamagedBundle ? new Refusal(`its git bundle is damaged (${error.why})`) : error;
}

function asRefusal(error: unknown): never {
  throw refusalOf(error);
}

/** The refs an import creates: the session's, and one per HEAD the bundle carries (kept alive for --reset-head). */
export async function codeRefs(contents: ExportContents, id: string): Promise<CodeRefs> {
  const header = await git.readBundleHeader(contents.bundleFile).catch(asRefusal);
  const tip = header.heads.find((h) => h.ref === BUNDLE_TIP);
  const last = contents.turns.at(-1)!;
  if (!tip) throw new Refusal(`its git bundle has no ${BUNDLE_TIP}`);
  if (tip.commit !== last.snapshot.commit)
    throw new Refusal(
      `its git bundle ends at ${tip.commit.slice(0, 10)}, but turn ${last.n} recorded ${last.snapshot.commit.slice(0, 10)}`,
    );
  const refs = [{ from: BUNDLE_TIP, ref: sessionRef(id), commit: tip.commit }];
  // Every other ref becomes a ref of this clone: each must be the HEAD a turn of the journal recorded.
  for (const h of header.heads) {
    if (h.ref === BUNDLE_TIP) continue;
    if (h.ref === BUNDLE_BASE) {
      // Carries the base commit's history; no ref is made for it here, but it must be what the manifest names.
      const base = contents.header.repo.baseCommit;
      if (h.commit !== base)
        throw new Refusal(
          `its git bundle's ${h.ref} points at ${h.commit.slice(0, 10)}, but the session's base commit is ${base?.slice(0, 10) ?? "(none)"}`,
        );
      continue;
    }
    const n = /^refs\/nudge\/export\/head-(\d{1,9})$/.exec(h.ref)?.[1];
    if (n === undefined) throw new Refusal(`its git bundle carries ${h.ref}, which no export makes`);
    const turn = contents.turns[Number(n)];
    if (!turn || turn.head !== h.commit) {
      throw new Refusal(
        `its git bundle's ${h.ref} points at ${h.commit.slice(0, 10)}, but ${turn ? `turn ${turn.n} recorded HEAD ${turn.head?.slice(0, 10) ?? "(none)"}` : `the session has no turn ${Number(n)}`}`,
      );
    }
    refs.push({ from: h.ref, ref: `refs/nudge/${id}/${turn.n}`, commit: h.commit });
  }
  return { refs };
}

/** Everything about the code, checked without writing to `root`. `scratchIndex`: a file path in the import's work folder. */
export async function checkCode(
  root: string,
  contents: ExportContents,
  refs: CodeRefs,
  scratchIndex: string,
  progress?: (line: string) => void,
): Promise<{ pack: string[] | null }> {
  const format = await git.objectFormat(root);
  if (format !== contents.git.objectFormat) {
    throw new UserError(
      `the export is of a ${contents.git.objectFormat.toUpperCase()} repository; this one uses ${format.toUpperCase()}`,
      "import it into a clone of the repository it was recorded in",
    );
  }
  // Another project is told rather than what the bundle's check finds missing (asked alongside it).
  const another = refuseAnotherProject(root, contents).then(
    () => null,
    (error: unknown) => error,
  );
  // The pack checked in the scratch repository is kept beside it (the import's work folder), to be moved in at install.
  const { pack } = await git
    .checkBundle(
      root,
      contents.bundleFile,
      refs.refs.map((r) => r.from),
      contents.git.prerequisites,
      (scratch) => snapshotsAndPatches(scratch, contents, refs, scratchIndex, progress),
      path.dirname(scratchIndex), // the scratch repository beside it, in the import's work folder
      path.join(path.dirname(scratchIndex), "pack"),
    )
    .catch(async (error: unknown) => {
      throw (await another) ?? refusalOf(error);
    });
  const refused = await another;
  if (refused) throw refused;
  return { pack };
}

/**
 * In the scratch repository, the bundle's objects in place: every snapshot commit holds the tree
 * its turn recorded, and every patch, applied in order onto the base commit, reproduces it.
 */
async function snapshotsAndPatches(
  scratch: string,
  contents: ExportContents,
  refs: CodeRefs,
  scratchIndex: string,
  progress?: (line: string) => void,
): Promise<void> {
  const base = contents.header.repo.baseCommit;
  // The base commit's tree, which also says the commit is there (one git process for both).
  const start = base ? await git.treeOf(scratch, `${base}^{commit}`).catch(() => null) : await git.emptyTree(scratch);
  if (start === null) {
    throw new UserError(
      `this repository lacks the session's base commit ${base}`,
      "fetch it (git fetch), then import again",
    );
  }
  progress?.("checking every snapshot…");
  const chain = new Map((await git.commitChain(scratch, refs.refs[0]!.commit, base)).map((c) => [c.commit, c.tree]));
  for (const t of contents.turns)
    for (const { snapshot: s } of turnSteps(t))
      if (chain.get(s.commit) !== s.tree)
        throw new Refusal(`turn ${t.n}'s snapshot commit does not hold the tree it recorded`);
  progress?.("checking every patch…");
  const steps = contents.turns.flatMap((t) =>
    turnSteps(t).map((s) => ({ turn: t, patch: s.patch.file, tree: s.snapshot.tree })),
  );
  const files = steps.map((s) => path.join(contents.sessionDir, s.patch));
  const large = await Promise.all(files.map(async (f) => (await fs.stat(f)).size > LARGE_PATCH));
  const from = steps.map((_, i) => (i === 0 ? start : steps[i - 1]!.tree));
  // Each patch is what git makes between the recorded trees, in one process for all (a large
  // one alone, compared as git writes it): then applying it reproduces the tree. One that
  // differs (another git may write a diff another way) is applied for real, onto the tree before it.
  const small = steps.flatMap((s, i) => (large[i] ? [] : [i]));
  const made = await git.diffTreePairs(
    scratch,
    small.map((i) => [from[i]!, steps[i]!.tree]),
  );
  const madeOf = new Map(small.map((step, k) => [step, made[k]!]));
  // Read one by one, synchronously: a patch is seldom large, and 200 reads each through the
  // thread pool and a promise were ~60 ms of a 200-turn import.
  for (const [i, step] of steps.entries()) {
    const same = large[i]
      ? await git.diffTreeEquals(scratch, from[i]!, step.tree, files[i]!)
      : madeOf.get(i)!.equals(readFileSync(files[i]!));
    if (same) continue;
    const patch = await fs.readFile(files[i]!);
    const tree = await git.applyToTree(scratch, scratchIndex, from[i]!, patch).catch((error: unknown) => {
      if (!(error instanceof UserError)) throw error;
      throw new Refusal(
        `${step.patch} (turn ${step.turn.n}) does not apply: ${error.message.replace(/^a patch in the export does not apply: /, "")}`,
      );
    });
    if (tree !== step.tree)
      throw new Refusal(
        `${step.patch} does not reproduce turn ${step.turn.n}'s snapshot (tree ${tree.slice(0, 10)}, recorded ${step.tree.slice(0, 10)})`,
      );
  }
}

/**
 * A repository with none of the exporter's root commits is another project: "fetch the missing
 * commits" would never help there, and an export that carries its whole history (made where no
 * remote has it) would otherwise import into any repository, its rewinds writing another
 * project's files. Asked unless the commits the export builds on are all here (then it is this
 * project), and never said in a shallow clone, which lacks its own root commits.
 */
async function refuseAnotherProject(root: string, contents: ExportContents): Promise<void> {
  const roots = contents.git.rootCommits ?? [];
  if (roots.length === 0) return; // an export of an older nudge: the fetch hint below is all it can say
  const base = contents.header.repo.baseCommit;
  // Once each: the base is often the bundle's prerequisite too.
  const needed = [
    ...new Set([
      ...contents.git.prerequisites.map((p) => p.commit),
      ...(base && !contents.git.carried.includes(base) ? [base] : []),
    ]),
  ];
  const present = async (commit: string) => git.objectExists(root, `${commit}^{commit}`);
  if (needed.length > 0 && (await Promise.all(needed.map(present))).every(Boolean)) return;
  if ((await Promise.all(roots.map(present))).some(Boolean) || (await git.isShallow(root))) return;
  throw new UserError(
    `this repository is another project: the session was recorded in ${contents.index.exported.repoRoot}, whose history begins at ${roots[0]!.slice(0, 10)}, a commit this repository does not have`,
    "import it into a clone of the repository it was recorded in",
  );
}
