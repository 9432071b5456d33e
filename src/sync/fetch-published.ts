/**
 * `nudge session fetch`: the remote's cards (small objects only: no session's content travels),
 * into nudge's sync repository. A publication gone from the remote is dropped here too, with its
 * content if it had been fetched.
 */
import path from "node:path";
import { UserError } from "../base/errors.js";
import { acquireLock, holderText } from "../store/locks.js";
import type { Store } from "../store/store.js";
import * as remoteGit from "../snapshot/git-remote.js";
import { MAX_CARD_BYTES, PUBLISHED_ID, PUBLISHED_PREFIX } from "./published-card.js";
import { rememberLabel } from "./fetched-elsewhere.js";
import { fetchedCards, fetchedPrefix, syncRepo, type FetchedCard, type Remote } from "./sync-remote.js";

export interface FetchResult {
  remote: string;
  cards: FetchedCard[];
  added: string[];
  updated: string[];
  removed: string[];
  /** Refs under the published prefix whose id is not one nudge publishes: not fetched for good. */
  ignored: number;
}

export async function syncLock(store: Store, what: string) {
  return acquireLock(path.join(store.dir, "locks", "sync.lock"), {
    what,
    waitMs: 120_000,
    busy: (holder) =>
      new UserError(
        `another nudge is syncing sessions in this repository (${holderText(holder)})`,
        "wait for it to finish, then run the command again",
      ),
  });
}

export async function fetchPublished(store: Store, remote: Remote): Promise<FetchResult> {
  const repo = await syncRepo(store);
  const lock = await syncLock(store, `fetching sessions from ${remote.label}`);
  try {
    const prefix = fetchedPrefix(remote);
    await rememberLabel(repo, remote.key, remote.label);
    const before = await remoteGit.localRefs(repo, prefix);
    // Only the cards: `*` in the middle of a refspec matches the id, so no data ref is asked for.
    // A card over its size limit stays on the server (listed as unreadable), however big it is.
    await remoteGit.fetchRefs(repo, remote.fetchUrl, [`+${PUBLISHED_PREFIX}*/card:${prefix}*/card`], {
      prune: true,
      maxBlobBytes: MAX_CARD_BYTES,
      keepRefsToLeftOut: true,
    });
    // Ids nudge never publishes (a hostile 200-character one, say): dropped, never listed or pulled.
    const fetched = await remoteGit.localRefs(repo, prefix);
    const foreign = [...fetched.keys()].filter(
      (ref) => !PUBLISHED_ID.test(ref.slice(prefix.length).split("/")[0] ?? ""),
    );
    await remoteGit.setRefs(
      repo,
      foreign.map((ref) => ({ ref, commit: null })),
    );
    const after = new Map([...fetched].filter(([ref]) => !foreign.includes(ref)));
    const cardsBefore = new Map([...before].filter(([ref]) => ref.endsWith("/card")));
    const cardsAfter = new Map([...after].filter(([ref]) => ref.endsWith("/card")));
    const idOf = (ref: string) => ref.slice(prefix.length, -"/card".length);
    // Content fetched earlier for a publication that is gone: dropped with its card.
    const stale = [...after.keys()].filter(
      (ref) => ref.endsWith("/data") && !cardsAfter.has(ref.replace(/\/data$/, "/card")),
    );
    await remoteGit.setRefs(
      repo,
      stale.map((ref) => ({ ref, commit: null })),
    );
    return {
      remote: remote.label,
      cards: await fetchedCards(repo, remote),
      added: [...cardsAfter.keys()].filter((r) => !cardsBefore.has(r)).map(idOf),
      updated: [...cardsAfter].filter(([r, c]) => cardsBefore.has(r) && cardsBefore.get(r) !== c).map(([r]) => idOf(r)),
      removed: [...cardsBefore.keys()].filter((r) => !cardsAfter.has(r) && !foreign.includes(r)).map(idOf),
      ignored: foreign.length,
    };
  } finally {
    await lock.release();
  }
}
