/**
 * `nudge session pull <id>`: a published session's content fetched into nudge's sync repository,
 * then installed by `session import` itself, from the very bytes published (an export tarball,
 * uncompressed): every check an import runs on a file runs here, and a refusal leaves nothing
 * installed. Before that, only the shape of the publication is looked at (one file, `export.tar`,
 * no bigger than an import would unpack), so a hostile server's huge blob is never read.
 */
import path from "node:path";
import { UserError } from "../base/errors.js";
import { beginWork } from "../store/cut-off-work.js";
import type { Store } from "../store/store.js";
import * as remoteGit from "../snapshot/git-remote.js";
import { importSession, type ImportOptions, type ImportResult } from "../sharing/import-session.js";
import { DEFAULT_LIMITS, formatBytes } from "../sharing/limits.js";
import * as git from "../snapshot/git.js";
import {
  EXPORT_FILE,
  PUBLISHED_ID,
  PUBLISHED_PREFIX,
  basePrefix,
  baseRef,
  basePins,
  cardRef,
  dataRef,
} from "./published-card.js";
import { syncLock } from "./fetch-published.js";
import { exportPrerequisites, tarStartProblem } from "./publish-export.js";
import {
  fetchedCards,
  fetchedRef,
  minePrefix,
  pairs,
  pulledPrefix,
  pulledRef,
  setPulled,
  syncRepo,
  type Remote,
} from "./sync-remote.js";

export interface PullResult {
  id: string;
  remote: string;
  import: ImportResult;
}

/** A published id, or a unique prefix of one among the cards fetched. */
export async function resolvePublished(store: Store, remote: Remote, given: string): Promise<string> {
  if (PUBLISHED_ID.test(given)) return given;
  if (!/^[0-9a-f]{1,10}$/.test(given))
    throw new UserError(
      `${JSON.stringify(given)} is not a session id`,
      "published sessions have ids of 10 hex characters; list them: nudge session list --remote",
    );
  const ids = (await fetchedCards(await syncRepo(store), remote)).map((c) => c.id).filter((id) => id.startsWith(given));
  if (ids.length === 1) return ids[0]!;
  if (ids.length === 0)
    throw new UserError(
      `no published session ${given} from ${remote.label} is known here`,
      "fetch the list first: nudge session fetch, then: nudge session list --remote",
    );
  throw new UserError(
    `${given} names ${ids.length} published sessions: ${ids.slice(0, 5).join(", ")}`,
    "give more of the id",
  );
}

/** The most a publication's export may be: what an import would unpack at most, plus the tar's own headers. */
function exportLimit(maxBytes: number | undefined): number {
  return (maxBytes ?? DEFAULT_LIMITS.maxTotalBytes) + DEFAULT_LIMITS.maxIndexBytes + 16 * 1024 * 1024;
}

/** A publication's data commit in the sync repository, and its tree's entries when they were read already. */
export interface FetchedData {
  commit: string;
  entries?: remoteGit.TreeEntry[];
}

/**
 * The publication's content, fetched (only its own ref) into the sync repository: its data
 * commit. A blob over the limit is not downloaded at all (publishedExport then refuses it).
 */
export async function fetchData(
  store: Store,
  remote: Remote,
  id: string,
  maxBytes: number | undefined,
): Promise<FetchedData> {
  const repo = await syncRepo(store);
  const local = fetchedRef(remote, id, "data");
  const lock = await syncLock(store, `fetching session ${id} from ${remote.label}`);
  try {
    const refs = await remoteGit.lsRemote(repo, remote.fetchUrl, `${PUBLISHED_PREFIX}${id}/`);
    const there = refs.get(dataRef(id));
    if (!there && refs.has(cardRef(id))) {
      throw new UserError(
        `${remote.label} lists published session ${id} (its card is there) but holds none of its content: the publication is incomplete or was damaged`,
        `nothing was pulled; its author can push it again (nudge session push), or remove it: nudge session unpublish ${id} --force`,
      );
    }
    if (!there)
      throw new UserError(
        `${remote.label} has no published session ${id}`,
        "list what it has: nudge session fetch && nudge session list --remote",
      );
    const limit = { prune: false, maxBlobBytes: exportLimit(maxBytes) };
    if ((await remoteGit.localRefs(repo, local)).get(local) !== there)
      await remoteGit.fetchRefs(repo, remote.fetchUrl, [`+${dataRef(id)}:${local}`], limit);
    else {
      // Left out by an earlier fetch under a smaller limit: asked for again, under this one.
      const entries = await remoteGit.treeEntries(repo, there);
      if (!entries.some((e) => e.type === "blob" && e.size === null)) return { commit: there, entries };
      await remoteGit.fetchRefs(repo, remote.fetchUrl, [`+${dataRef(id)}:${local}`], { ...limit, refetch: true });
    }
    const commit = (await remoteGit.localRefs(repo, local)).get(local);
    if (!commit)
      throw new UserError(
        `fetching session ${id} from ${remote.label} brought nothing`,
        "run the command again; if it goes on, the remote's refs are damaged",
      );
    return { commit };
  } finally {
    await lock.release();
  }
}

/** At most this many pins are fetched: an export builds on one or two commits (its base, a HEAD moved during the session). */
const MAX_PINS = 16;

/**
 * The commits the publication builds on that this clone lacks (its author rewrote the branch
 * that held them since), fetched from the remote's pins as `git fetch` fetches code: objects
 * only, no ref. Only pins of commits the export itself says it needs (its index's
 * prerequisites), and only those missing here: a remote's other pins are never fetched (QA: a
 * hostile one put 40 MB of unrelated history into the repository). The import's own checks
 * then decide, as for any commit of this repository's.
 */
async function fetchPinnedBase(store: Store, remote: Remote, id: string, tar: string): Promise<void> {
  const needed = await exportPrerequisites(tar);
  if (needed.length === 0) return;
  const pinned = new Set(
    basePins(id, await remoteGit.lsRemote(await syncRepo(store), remote.fetchUrl, basePrefix(id))),
  );
  const present = await Promise.all(needed.map((c) => git.objectExists(store.repoRoot, `${c}^{commit}`)));
  const missing = needed.filter((c, i) => !present[i] && pinned.has(c)).slice(0, MAX_PINS);
  await remoteGit.fetchPinnedObjects(
    store.repoRoot,
    remote.fetchUrl,
    missing.map((c) => baseRef(id, c)),
  );
}

/** The export a publication holds, written to `file` after its shape and size are checked. */
export async function publishedExport(
  repo: string,
  data: FetchedData,
  id: string,
  file: string,
  maxBytes: number | undefined,
): Promise<void> {
  const refusing = (
    why: string,
    hint = "it was damaged or altered since it was published; ask its author to push it again",
  ) => new UserError(`refusing published session ${id}: ${why}`, hint);
  const entries = data.entries ?? (await remoteGit.treeEntries(repo, data.commit));
  const entry = entries[0];
  if (
    entries.length !== 1 ||
    !entry ||
    entry.name !== EXPORT_FILE ||
    entry.type !== "blob" ||
    entry.mode !== "100644"
  ) {
    throw refusing(
      `it is not a nudge publication (its tree holds ${
        entries
          .map((e) => JSON.stringify(e.name))
          .slice(0, 5)
          .join(", ") || "nothing"
      }, not one ${EXPORT_FILE})`,
    );
  }
  // What an import would unpack at most, plus the tar's own headers: anything bigger is refused unread.
  const limit = exportLimit(maxBytes);
  if (entry.size === null) {
    // The fetch's filter left it on the server: it is over the limit.
    throw refusing(
      `its export is more than an import unpacks (${formatBytes(limit)}); it was not downloaded`,
      "if you trust it, pull it with a larger --max-size",
    );
  }
  if (entry.size > limit) {
    throw refusing(
      `its export is ${formatBytes(entry.size ?? 0)}, more than an import unpacks (${formatBytes(limit)})`,
      `if you trust it, pull it with --max-size ${Math.ceil((entry.size ?? 0) / 1024 / 1024)}MiB`,
    );
  }
  await remoteGit.blobToFile(repo, entry.id, file);
}

export async function pullSession(
  store: Store,
  remote: Remote,
  given: string,
  o: Pick<ImportOptions, "force" | "dryRun" | "maxBytes" | "progress">,
): Promise<PullResult> {
  const id = await resolvePublished(store, remote, given);
  const data = await fetchData(store, remote, id, o.maxBytes);
  const repo = await syncRepo(store);
  // What the listing calls unreadable (a card naming another session, not matching its schema) is
  // not pulled either (QA: another's publication, pushed over this id, was installed under it).
  const card = (await fetchedCards(repo, remote)).find((c) => c.id === id);
  if (card?.problem)
    throw new UserError(
      `refusing published session ${id} from ${remote.label}: ${card.problem}`,
      "it was damaged or altered since it was published; ask its author to push it again",
    );
  const work = await beginWork(store, "pull", `pulling session ${id} from ${remote.label}`);
  try {
    const file = path.join(work.dir, `nudge-${id}.tar`);
    await publishedExport(repo, data, id, file, o.maxBytes);
    // Publications are plain tars: one that does not start as one is refused before anything reads it.
    const problem = await tarStartProblem(file);
    if (problem)
      throw new UserError(
        `the published export of ${id} from ${remote.label} is not a valid nudge export: ${problem}`,
        "it was damaged or altered since it was published; ask its author to push it again",
      );
    await fetchPinnedBase(store, remote, id, file);
    // The import path itself, on the published bytes: its checks, its locks, its rollback.
    // A fork published from a publication this clone has (its own, or one it pulled) comes in as a fork of that session here.
    const imported = await importSession(store, file, {
      ...o,
      what: `a pull of session ${id} from ${remote.label}`,
      lineage: await localOrigin(repo, remote, card?.card?.forkOf ?? null),
    }).catch((error: unknown) => {
      // The import names its file, a temp one here: the user knows it as the published session.
      if (!(error instanceof UserError)) throw error;
      const named = `refusing ${path.basename(file)}: `;
      const message = error.message.startsWith(named)
        ? `refusing published session ${id} from ${remote.label}: ${error.message.slice(named.length)}`
        : `published session ${id} from ${remote.label}: ${error.message}`;
      throw new UserError(message, error.hint);
    });
    if (imported.status !== "dry-run") await setPulled(repo, pulledRef(remote, id, imported.id), data.commit);
    return { id, remote: remote.label, import: imported };
  } finally {
    await work.finish();
  }
}

/** The session here that publication `forkOf.id` is (published from here, or pulled here), at the turn the fork took. */
async function localOrigin(
  repo: string,
  remote: Remote,
  forkOf: { id: string; turn: number } | null,
): Promise<{ id: string; turn: number } | null> {
  if (!forkOf) return null;
  const mine = (await pairs(repo, minePrefix(remote))).find((p) => p.b === forkOf.id);
  const pulled = (await pairs(repo, pulledPrefix(remote))).find((p) => p.a === forkOf.id);
  const local = mine?.a ?? pulled?.b;
  return local ? { id: local, turn: forkOf.turn } : null;
}
