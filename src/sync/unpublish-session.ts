/**
 * `nudge session unpublish <id>`: a publication's refs (data, card, pins) deleted on the remote in one
 * atomic push, each under a lease (only what was seen is deleted). Someone else's publication is
 * removed only with --force: the server decides who may, nudge makes sure it was meant.
 */
import { UserError } from "../base/errors.js";
import type { Store } from "../store/store.js";
import * as remoteGit from "../snapshot/git-remote.js";
import { basePrefix, cardRef, dataRef, PUBLISHED_ID, publishedPrefix } from "./published-card.js";
import { syncLock } from "./fetch-published.js";
import {
  adoptKnown,
  fetchedCards,
  fetchedRef,
  minePrefix,
  pairs,
  pulledPrefix,
  syncRepo,
  type Remote,
} from "./sync-remote.js";
import { classifyRefusal } from "./push-refusal.js";

export interface UnpublishResult {
  id: string;
  remote: string;
  /** Published from this clone (else --force was given). */
  mine: boolean;
  dryRun: boolean;
}

export async function unpublishSession(
  store: Store,
  remote: Remote,
  given: string,
  o: { force: boolean; dryRun: boolean },
): Promise<UnpublishResult> {
  const repo = await syncRepo(store);
  const lock = await syncLock(store, `unpublishing ${given} from ${remote.label}`);
  try {
    const mine = await pairs(repo, minePrefix(remote));
    const whole = await wholeId(repo, remote, mine, given);
    // A local session's id names what this clone published of it; else the published id itself.
    // A publication of that very id made here is what it names; else a session here names what it was published as.
    const yours = mine.some((p) => p.b === whole) ? whole : mine.find((p) => p.a === whole)?.b;
    let id = yours ?? whole;
    if (yours && yours !== whole) {
      // Both a session here (published as a fork under another id) and a publication of that id
      // there: which one was meant is not for nudge to guess (QA). --force means the one of that id.
      const other = await remoteGit.lsRemote(repo, remote.pushUrl, publishedPrefix(whole));
      if (other.has(dataRef(whole)) || other.has(cardRef(whole))) {
        if (!o.force) {
          throw new UserError(
            `${whole} names your session here, published on ${remote.label} as ${yours}, and also a publication ${whole} there: nothing was removed`,
            `yours: nudge session unpublish ${yours} · the other one (not published from here): nudge session unpublish ${whole} --force`,
          );
        }
        id = whole;
      }
    }
    const refs = await remoteGit.lsRemote(repo, remote.pushUrl, publishedPrefix(id));
    const data = refs.get(dataRef(id));
    const card = refs.get(cardRef(id));
    if (!data && !card)
      throw new UserError(
        `${remote.label} has no published session ${id}`,
        "list what it has: nudge session fetch && nudge session list --remote",
      );
    // Published from here through another URL of the same server: it is known by its commit.
    const ours =
      mine.some((p) => p.b === id) ||
      (data !== undefined && (await adoptKnown(repo, remote, new Map([[id, data]]))) > 0);
    if (!ours && !o.force) {
      throw new UserError(
        `published session ${id} on ${remote.label} was not pushed from here`,
        `nothing was removed; to remove someone else's publication all the same: nudge session unpublish ${id} --force`,
      );
    }
    if (o.dryRun) return { id, remote: remote.label, mine: ours, dryRun: true };
    const pushed = await remoteGit.pushRefs(repo, remote.pushUrl, [
      ...(data ? [{ commit: null, ref: dataRef(id), expect: data }] : []),
      ...(card ? [{ commit: null, ref: cardRef(id), expect: card }] : []),
      // The pins of the code it built on go with it (the branches that hold that code keep it).
      ...[...refs]
        .filter(([ref]) => ref.startsWith(basePrefix(id)))
        .map(([ref, commit]) => ({ commit: null, ref, expect: commit })),
    ]);
    if (!pushed.ok) {
      const refusal = classifyRefusal(pushed.rejected, pushed.said);
      if (refusal.kind === "moved")
        throw new UserError(
          `the remote refused to remove ${id} (${refusal.why}): it changed meanwhile`,
          "fetch and look again: nudge session fetch && nudge session list --remote",
        );
      throw new UserError(
        `the remote refused to remove ${id} (${refusal.why})`,
        `nothing was removed; ${refusal.kind === "busy" ? "another push to it was under way: run the command again" : "ask whoever runs the remote why, then run the command again"}`,
      );
    }
    const pulled = (await pairs(repo, pulledPrefix(remote))).filter((p) => p.a === id);
    await remoteGit.setRefs(repo, [
      ...(await pairs(repo, minePrefix(remote))).filter((p) => p.b === id).map((p) => ({ ref: p.ref, commit: null })),
      ...pulled.map((p) => ({ ref: p.ref, commit: null })),
      { ref: fetchedRef(remote, id, "data"), commit: null },
      { ref: fetchedRef(remote, id, "card"), commit: null },
    ]);
    return { id, remote: remote.label, mine: ours, dryRun: false };
  } finally {
    await lock.release();
  }
}

/** The whole id `given` names: itself, or the one session here or publication fetched from `remote` it is a prefix of. */
async function wholeId(
  repo: string,
  remote: Remote,
  mine: Array<{ a: string; b: string }>,
  given: string,
): Promise<string> {
  if (PUBLISHED_ID.test(given)) return given;
  if (!/^[0-9a-f]{1,9}$/.test(given))
    throw new UserError(
      `${JSON.stringify(given)} is not a session id`,
      "give a session's id or the start of it (hex), as nudge session list --remote shows it",
    );
  const known = new Set([...mine.flatMap((p) => [p.a, p.b]), ...(await fetchedCards(repo, remote)).map((c) => c.id)]);
  const matches = [...known].filter((id) => id.startsWith(given));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0)
    throw new UserError(
      `no session ${given} published on ${remote.label} is known here`,
      "fetch the list first: nudge session fetch, then: nudge session list --remote (or give the whole id)",
    );
  throw new UserError(
    `${given} names ${matches.length} sessions: ${matches.slice(0, 5).join(", ")}`,
    "give more of the id",
  );
}
