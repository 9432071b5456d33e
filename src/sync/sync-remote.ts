/**
 * Which remote session sync talks to, and what this clone remembers about it. All of it lives in
 * nudge's own bare repository in the store (`<store>/remote.git`), under refs of its own:
 *   refs/nudge/remote/<remote>/<id>/card|data    the remote's publications as last fetched
 *   refs/nudge/mine/<remote>/<session>/<id>      what this clone last published of <session> as <id>
 *   refs/nudge/pulled/<remote>/<id>/<session>    the publication <id> pulled here as <session>
 *   refs/nudge/pending/<remote>/<session>/<id>   a push under way (a kill between the push and the
 *                                                refs above leaves it; the next push settles it)
 * so the user's repository gets none of the remote's objects until `session import`'s checks
 * have passed, and none of these refs.
 */
import { createHash } from "node:crypto";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import type { Store } from "../store/store.js";
import { isRunning, processStart } from "../store/locks.js";
import * as git from "../snapshot/git.js";
import * as remoteGit from "../snapshot/git-remote.js";
import { CARD_FILE, CardSchema, MAX_CARD_BYTES, PUBLISHED_ID, parsePublishedRef, type Card } from "./published-card.js";

export interface Remote {
  /** As the user named it (a remote's name, or a URL), for messages. */
  label: string;
  /** The folder name of this remote's refs in the sync repository. */
  key: string;
  fetchUrl: string;
  pushUrl: string;
  /** The remote's name in the user's repository (null for a URL): its remote-tracking branches say which commits it holds. */
  name?: string | null;
}

/**
 * The remote: the one named, else `nudge.remote` in git config (a name or a URL: sessions may go
 * to a repository of their own), else the current branch's upstream remote, else `origin`.
 */
export async function resolveRemote(store: Store, given: string | undefined): Promise<Remote> {
  const root = store.repoRoot;
  const branch = await git.currentBranch(root);
  const chosen =
    given ??
    (await remoteGit.configValue(root, "nudge.remote")) ??
    (branch ? await remoteGit.configValue(root, `branch.${branch}.remote`) : null) ??
    "origin";
  const urls = await remoteGit.remoteUrls(root, chosen);
  if (urls) {
    const local = (u: string) => localPath(root, u);
    return {
      label: chosen,
      key: keyOf(chosen, true),
      fetchUrl: local(urls.fetch),
      pushUrl: local(urls.push),
      name: chosen,
    };
  }
  if (
    /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(chosen) ||
    /^[^/]+@[^/]+:/.test(chosen) ||
    existsSync(path.resolve(chosen))
  ) {
    const url = localPath(process.cwd(), chosen);
    return { label: chosen, key: keyOf(url, false), fetchUrl: url, pushUrl: url, name: null };
  }
  throw new UserError(
    given
      ? `there is no remote ${JSON.stringify(given)} in this repository`
      : `this repository has no remote ${JSON.stringify(chosen)} to sync sessions with`,
    "name one with --remote <name|url>, or set one for nudge: git config nudge.remote <name|url>",
  );
}

/** git runs in nudge's own repository: a remote given as a relative path is made absolute from where it was meant. */
function localPath(base: string, url: string): string {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) || /^[^/]+@[^/]+:/.test(url) || path.isAbsolute(url)) return url;
  return path.resolve(base, url);
}

/** A remote's name when it is a plain one; a URL by its hash (a ref name cannot hold a URL). */
function keyOf(name: string, isName: boolean): string {
  if (isName && /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(name)) return name;
  return `url-${createHash("sha256").update(name).digest("hex").slice(0, 16)}`;
}

/** What syncRepository makes the repository in before renaming it (git-remote.ts). */
const SYNC_TEMP = /^remote\.git\.(\d+)\.tmp$/;

export async function syncRepo(store: Store): Promise<string> {
  const repo = path.join(store.dir, "remote.git");
  if (!existsSync(path.join(repo, "HEAD"))) await removeDeadTemps(store);
  return remoteGit.syncRepository(repo, await git.objectFormat(store.repoRoot));
}

/** The sync repository is made as `remote.git.<pid>.tmp` and renamed: one a killed nudge was making goes. */
async function removeDeadTemps(store: Store): Promise<void> {
  for (const name of await fs.readdir(store.dir).catch(() => [] as string[])) {
    const pid = SYNC_TEMP.exec(name)?.[1];
    if (!pid || Number(pid) === process.pid || isRunning({ pid: Number(pid), started: processStart(Number(pid)) }))
      continue;
    await fs.rm(path.join(store.dir, name), { recursive: true, force: true });
  }
}

/** Where the remotes' publications, as last fetched, live: `<root><remote key>/<id>/card|data`. */
export const FETCHED_ROOT = "refs/nudge/remote/";
export const fetchedPrefix = (r: Remote) => `${FETCHED_ROOT}${r.key}/`;
export const fetchedRef = (r: Remote, id: string, kind: "card" | "data") => `${fetchedPrefix(r)}${id}/${kind}`;
export const minePrefix = (r: Remote) => `refs/nudge/mine/${r.key}/`;
export const mineRef = (r: Remote, session: string, id: string) => `${minePrefix(r)}${session}/${id}`;
export const pulledPrefix = (r: Remote) => `refs/nudge/pulled/${r.key}/`;
/** A publication being pushed: written before the push, made `mine` once the remote is seen to hold it. */
export const pendingPrefix = (r: Remote) => `refs/nudge/pending/${r.key}/`;
export const pendingRef = (r: Remote, session: string, id: string) => `${pendingPrefix(r)}${session}/${id}`;
export const pulledRef = (r: Remote, id: string, session: string) => `${pulledPrefix(r)}${id}/${session}`;

/** A fetched ref (`<FETCHED_ROOT><key>/<id>/<kind>`) → the remote's key, the id and the kind; null for any other. */
export function parseFetchedRef(ref: string): { key: string; id: string; kind: "card" | "data" } | null {
  const rest = ref.startsWith(FETCHED_ROOT) ? ref.slice(FETCHED_ROOT.length) : "";
  const slash = rest.indexOf("/");
  const published = slash > 0 ? parsePublishedRef(rest.slice(slash + 1), "") : null;
  return published && { key: rest.slice(0, slash), ...published };
}

/** `<a>/<b>`, two ids (the rest of a mine, pulled or pending ref), or null. */
function idPair(rest: string): { a: string; b: string } | null {
  const [a = "", b = "", ...more] = rest.split("/");
  return PUBLISHED_ID.test(a) && PUBLISHED_ID.test(b) && more.length === 0 ? { a, b } : null;
}

/** Refs under `prefix` whose rest is `<a>/<b>`: a → b → commit. */
export async function pairs(
  repo: string,
  prefix: string,
): Promise<Array<{ a: string; b: string; commit: string; ref: string }>> {
  return [...(await remoteGit.localRefs(repo, prefix))].flatMap(([ref, commit]) => {
    const ids = idPair(ref.slice(prefix.length));
    return ids ? [{ ...ids, commit, ref }] : [];
  });
}

export interface FetchedCard {
  id: string;
  card: Card | null;
  /** Why the card could not be read (a damaged or hostile one): it is listed as such, never trusted. */
  problem: string | null;
  /** The card commit this clone fetched. */
  commit: string;
}

/** The cards fetched from `remote`, read from small objects only. */
export async function fetchedCards(repo: string, remote: Remote): Promise<FetchedCard[]> {
  const prefix = fetchedPrefix(remote);
  const refs = [...(await remoteGit.localRefs(repo, prefix))].flatMap(([ref, commit]) => {
    // Only ids nudge publishes: anything else a remote holds is never listed (its length would widen every table).
    const card = parsePublishedRef(ref, prefix);
    return card?.kind === "card" ? [{ id: card.id, ref, commit }] : [];
  });
  const blobs = await remoteGit.readSmallBlobs(
    repo,
    refs.map((r) => `${r.commit}:${CARD_FILE}`),
    MAX_CARD_BYTES,
  );
  return refs.map((r, i): FetchedCard => {
    const blob = blobs[i];
    if (!blob)
      return { id: r.id, card: null, problem: `its card is missing or over ${MAX_CARD_BYTES} bytes`, commit: r.commit };
    let json: unknown;
    try {
      json = JSON.parse(blob.toString("utf8"));
    } catch {
      return { id: r.id, card: null, problem: "its card is not JSON", commit: r.commit };
    }
    const parsed = CardSchema.safeParse(json);
    if (!parsed.success)
      return {
        id: r.id,
        card: null,
        problem: `its card does not match the schema (${parsed.error.issues[0]?.path.join(".") ?? ""}: ${parsed.error.issues[0]?.message ?? ""})`,
        commit: r.commit,
      };
    if (parsed.data.id !== r.id)
      return { id: r.id, card: null, problem: `its card names another session (${parsed.data.id})`, commit: r.commit };
    return { id: r.id, card: parsed.data, problem: null, commit: r.commit };
  });
}

/** Remember that publication <id> (at `commit`) is session <session> here: its next push is a fork of it. */
export async function setPulled(repo: string, ref: string, commit: string): Promise<void> {
  await remoteGit.setRefs(repo, [{ ref, commit }]);
}

/**
 * The same server reached under another URL (`git://` here, `http://` there) has refs of its own
 * key here. A publication is known by what it is, not by the URL: where the remote holds, under an
 * id, the very commit this clone published or pulled under that id through another URL, that
 * record is copied under this remote's key. Returns how many were copied.
 */
export async function adoptKnown(repo: string, remote: Remote, remoteData: Map<string, string>): Promise<number> {
  const updates: Array<{ ref: string; commit: string }> = [];
  const refs = await remoteGit.localRefs(repo, "refs/nudge/");
  for (const kind of ["mine", "pulled"] as const) {
    // mine: <key>/<session>/<published id>; pulled: <key>/<published id>/<session>
    const root = `refs/nudge/${kind}/`;
    for (const [ref, commit] of refs) {
      const rest = ref.startsWith(root) ? ref.slice(root.length) : "";
      const slash = rest.indexOf("/");
      const ids = slash > 0 ? idPair(rest.slice(slash + 1)) : null;
      if (!ids || rest.slice(0, slash) === remote.key) continue;
      if (remoteData.get(kind === "mine" ? ids.b : ids.a) !== commit) continue;
      const own = kind === "mine" ? mineRef(remote, ids.a, ids.b) : pulledRef(remote, ids.a, ids.b);
      if (refs.get(own) !== commit) updates.push({ ref: own, commit });
    }
  }
  if (updates.length) await remoteGit.setRefs(repo, updates);
  return updates.length;
}
