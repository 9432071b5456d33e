/**
 * `nudge session unpublish <id>`: both of a publication's refs deleted on the remote in one
 * atomic push, each under a lease (only what was seen is deleted). Someone else's publication is
 * removed only with --force: the server decides who may, nudge makes sure it was meant.
 */
import { UserError } from "../errors.js";
import type { Store } from "../bundle/store.js";
import * as remoteGit from "../snapshot/git-remote.js";
import { cardRef, dataRef, PUBLISHED_ID } from "./published-card.js";
import { syncLock } from "./fetch-published.js";
import { fetchedRef, minePrefix, pairs, pulledPrefix, syncRepo, type Remote } from "./sync-remote.js";

export interface UnpublishResult {
  id: string;
  remote: string;
  /** Published from this clone (else --force was given). */
  mine: boolean;
  dryRun: boolean;
}

export async function unpublishSession(store: Store, remote: Remote, given: string, o: { force: boolean; dryRun: boolean }): Promise<UnpublishResult> {
  const repo = await syncRepo(store);
  const lock = await syncLock(store, `unpublishing ${given} from ${remote.label}`);
  try {
    const mine = await pairs(repo, minePrefix(remote));
    // A local session's id names what this clone published of it; else the published id itself.
    const id = mine.find((p) => p.a === given)?.b ?? given;
    if (!PUBLISHED_ID.test(id)) throw new UserError(`${JSON.stringify(given)} is not a published session id`, "give the whole id (10 hex characters), as nudge session list --remote shows it");
    const refs = await remoteGit.lsRemote(repo, remote.pushUrl, `refs/nudge/published/${id}/`);
    const data = refs.get(dataRef(id));
    const card = refs.get(cardRef(id));
    if (!data && !card) throw new UserError(`${remote.label} has no published session ${id}`, "list what it has: nudge session fetch && nudge session list --remote");
    const ours = mine.some((p) => p.b === id);
    if (!ours && !o.force) {
      throw new UserError(`published session ${id} on ${remote.label} was not pushed from here`, `nothing was removed; to remove someone else's publication all the same: nudge session unpublish ${id} --force`);
    }
    if (o.dryRun) return { id, remote: remote.label, mine: ours, dryRun: true };
    const pushed = await remoteGit.pushRefs(repo, remote.pushUrl, [
      ...(data ? [{ commit: null, ref: dataRef(id), expect: data }] : []),
      ...(card ? [{ commit: null, ref: cardRef(id), expect: card }] : []),
      // The pins of the code it built on go with it (the branches that hold that code keep it).
      ...[...refs].filter(([ref]) => ref.startsWith(`refs/nudge/published/${id}/base/`)).map(([ref, commit]) => ({ commit: null, ref, expect: commit })),
    ]);
    if (!pushed.ok) throw new UserError(`the remote refused to remove ${id} (${pushed.rejected.map((r) => r.why).join("; ")}): it changed meanwhile`, "fetch and look again: nudge session fetch && nudge session list --remote");
    const pulled = (await pairs(repo, pulledPrefix(remote))).filter((p) => p.a === id);
    await remoteGit.setRefs(repo, [
      ...mine.filter((p) => p.b === id).map((p) => ({ ref: p.ref, commit: null })),
      ...pulled.map((p) => ({ ref: p.ref, commit: null })),
      { ref: fetchedRef(remote, id, "data"), commit: null },
      { ref: fetchedRef(remote, id, "card"), commit: null },
    ]);
    return { id, remote: remote.label, mine: ours, dryRun: false };
  } finally {
    await lock.release();
  }
}
