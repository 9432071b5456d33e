/**
 * What `nudge session gc` cleans in nudge's sync repository (`<store>/remote.git`, the team
 * sync's: src/sync/sync-remote.ts): the contents of publications fetched to be pulled or
 * shown (`refs/nudge/remote/<remote>/<id>/data`: fetched again when needed), and every object no
 * ref reaches (a refused publication's, superseded cards and exports). What this clone published
 * or pulled stays (its next push builds on it, so only the new turn travels), and so do the cards
 * (the listing; `session fetch` drops those gone from the remote). The views of published sessions
 * that `show/diff/replay --remote` made (src/sync/remote-view.ts) go too: they are made again when needed.
 */
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import * as remoteGit from "../snapshot/git-remote.js";
import type { Store } from "../store/store.js";
import type { Leftover } from "./housekeeping-plan.js";
import { diskUsage } from "../store/disk-usage.js";

/** The sync repository's refs of fetched contents (sync-remote.ts's fetchedRef). */
const FETCHED_DATA = /^refs\/nudge\/remote\/[^/]+\/[^/]+\/data$/;

export async function syncLeftover(store: Store): Promise<Leftover | null> {
  const repo = path.join(store.dir, "remote.git");
  if (!existsSync(path.join(repo, "HEAD"))) return null;
  const fetched = [...(await remoteGit.localRefs(repo, "refs/nudge/remote/"))]
    .filter(([ref]) => FETCHED_DATA.test(ref))
    .map(([ref, commit]) => ({ ref, commit }));
  const counts = await remoteGit.objectCounts(repo);
  // Nothing fetched to drop, and git's gc would find everything packed once already.
  if (fetched.length === 0 && counts.loose === 0 && counts.garbage === 0 && counts.packs <= 1) return null;
  const contents = fetched.length
    ? `${fetched.length} fetched publication content${fetched.length === 1 ? "" : "s"} (fetched again when pulled or shown), `
    : "";
  return {
    kind: "sync-repository",
    path: repo,
    what: `nudge's sync repository: ${contents}objects no ref reaches, the rest repacked (${(counts.bytes / 1024 / 1024).toFixed(1)} MiB now)`,
    // What git's gc frees is known only after it ran: nothing is promised.
    bytes: 0,
    lock: path.join(store.dir, "locks", "sync.lock"),
    refs: fetched,
  };
}

/** `<store>/remote-view/<remote>/<published id>/`: one leftover each, removed under the sync's lock that makes them. */
export async function remoteViewLeftovers(store: Store): Promise<Leftover[]> {
  const root = path.join(store.dir, "remote-view");
  const found: Leftover[] = [];
  for (const remote of await fs.readdir(root).catch(() => [] as string[])) {
    for (const id of await fs.readdir(path.join(root, remote)).catch(() => [] as string[])) {
      const dir = path.join(root, remote, id);
      if (!(await fs.lstat(dir).catch(() => null))?.isDirectory()) continue;
      found.push({
        kind: "remote-view",
        path: dir,
        what: `the view of published session ${id} that --remote made (made again when shown)`,
        bytes: await diskUsage(dir),
        lock: path.join(store.dir, "locks", "sync.lock"),
      });
    }
  }
  return found;
}
