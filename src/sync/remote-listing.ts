/**
 * `nudge session list --remote`: the cards fetched from a remote, with whether this clone has
 * each session already — published from here, pulled here (and whether the remote has moved on),
 * or a session of the same id here (from an import of a file, say).
 */
import { listSessions, type Store } from "../store/store.js";
import type { Card } from "./published-card.js";
import { fetchedCards, minePrefix, pairs, pulledPrefix, syncRepo, type Remote } from "./sync-remote.js";

type Here = "yours" | "yours, changed there" | "pulled" | "pulled, newer there" | "here" | "no";

export interface RemoteRow {
  id: string;
  card: Card | null;
  problem: string | null;
  here: Here;
  /** The session here that it is, if any. */
  local: string | null;
}

export async function remoteListing(store: Store, remote: Remote): Promise<RemoteRow[]> {
  const repo = await syncRepo(store);
  const cards = await fetchedCards(repo, remote);
  const mine = await pairs(repo, minePrefix(remote));
  const pulled = await pairs(repo, pulledPrefix(remote));
  const localIds = new Set((await listSessions(store)).map((s) => s.header.id));
  const rows = cards.map((c): RemoteRow => {
    const data = c.card?.data;
    const own = mine.find((p) => p.b === c.id);
    if (own)
      return {
        id: c.id,
        card: c.card,
        problem: c.problem,
        here: own.commit === data ? "yours" : "yours, changed there",
        local: own.a,
      };
    const got = pulled.find((p) => p.a === c.id && localIds.has(p.b));
    if (got)
      return {
        id: c.id,
        card: c.card,
        problem: c.problem,
        here: got.commit === data ? "pulled" : "pulled, newer there",
        local: got.b,
      };
    // A fork published under a fresh id holds the session id of what it continued: that one being here is not this one.
    const same = c.card && c.card.id === c.card.session && localIds.has(c.card.session) ? c.card.session : null;
    return { id: c.id, card: c.card, problem: c.problem, here: same ? "here" : "no", local: same };
  });
  // Newest last turn first; unreadable cards at the end, and so are cards claiming a last turn in
  // the future: a card is anyone's to write, and one dated 2099 would sit first for good (QA).
  const latest = new Date(Date.now() + 60 * 60_000).toISOString();
  const when = (r: RemoteRow) => {
    const at = r.card?.lastTurnAt ?? "";
    return at && new Date(at).toISOString() <= latest ? new Date(at).toISOString() : "";
  };
  return rows.sort((a, b) => when(b).localeCompare(when(a)) || a.id.localeCompare(b.id));
}
