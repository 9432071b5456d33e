/**
 * A session id that is not here but was fetched from a remote (its card, by `session fetch`): the
 * publication it names and the remote, so a command can point there instead of saying only that no
 * session matches.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { Store } from "../store/store.js";
import * as remoteGit from "../snapshot/git-remote.js";
import { FETCHED_ROOT, parseFetchedRef } from "./sync-remote.js";

export async function fetchedElsewhere(
  store: Store,
  prefix: string,
): Promise<{ id: string; remote: string | null } | null> {
  const repo = path.join(store.dir, "remote.git");
  if (!existsSync(path.join(repo, "HEAD"))) return null;
  const found = new Map<string, string>();
  for (const ref of (await remoteGit.localRefs(repo, FETCHED_ROOT)).keys()) {
    const card = parseFetchedRef(ref);
    if (card?.kind === "card" && card.id.startsWith(prefix)) found.set(card.id, card.key);
  }
  if (found.size !== 1) return null;
  const [id, key] = [...found][0]!;
  return { id, remote: await labelOf(repo, key) };
}

/** How the user named the remote: a plain name is its own key; a URL is remembered at fetch time. */
async function labelOf(repo: string, key: string): Promise<string | null> {
  if (!key.startsWith("url-")) return key;
  return remoteGit.configValue(repo, `nudge-remote.${key}.label`);
}

/** Remembered at each fetch, for labelOf: a URL's key is its hash. */
export async function rememberLabel(repo: string, key: string, label: string): Promise<void> {
  if (key.startsWith("url-")) await remoteGit.setConfigValue(repo, `nudge-remote.${key}.label`, label);
}
