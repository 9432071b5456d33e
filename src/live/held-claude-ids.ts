/**
 * claude's session ids that name nudge sessions: a session nudge adopted (or recorded) keeps
 * claude's transcript in its bundle, so claude's id, or a prefix of it, still finds it there. A
 * fork's bundle holds its parent's transcript too: the id names the parent, not each fork of it.
 */
import { bundleDir, readHeader, type Store } from "../store/store.js";
import { claudeIdHolders } from "../store/known-claude-ids.js";

export interface HeldClaudeId {
  /** claude's session id. */
  claude: string;
  /** The nudge session holding its transcript as its own. */
  nudge: string;
}

/** Every claude id nudge's bundles hold (what claude's own listings leave out), and those `idOrPrefix` begins, with the sessions holding them. */
export async function heldClaudeIds(
  store: Store,
  idOrPrefix: string,
): Promise<{ known: Set<string>; matches: HeldClaudeId[] }> {
  const holders = await claudeIdHolders(store.dir);
  const matches: HeldClaudeId[] = [];
  for (const [claude, ids] of holders) {
    if (!claude.startsWith(idOrPrefix)) continue;
    const parents = await Promise.all(
      ids.map((id) =>
        readHeader(bundleDir(store, id)).then(
          (h) => h.parent?.id ?? null,
          () => null,
        ),
      ),
    );
    const own = ids.filter((_, i) => !ids.includes(parents[i] ?? ""));
    for (const nudge of own.length ? own : ids) matches.push({ claude, nudge });
  }
  return { known: new Set(holders.keys()), matches };
}
