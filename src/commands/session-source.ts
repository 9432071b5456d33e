import { commandStore } from "./command-store.js";
import * as z from "../base/zod.js";
import { loadSession, NoSuchSession, type StoredSession, type Store } from "../store/store.js";
import { resolveNudgeId } from "../live/session-id.js";
import { UserError } from "../base/errors.js";
import { visible } from "../base/inert-text.js";
import { shellQuote } from "../base/shell-quote.js";

/** `--remote [name|url]` of show, diff and replay: look at a published session instead of one of this repository's. */
export const RemoteOption = z.optional(z.union([z.boolean(), z.string().check(z.minLength(1))]));
export const REMOTE_FLAG = "--remote [name|url]";
export const REMOTE_HELP =
  "a session published on a remote (nudge session fetch lists them), checked and read without pulling it";

/** The store a session is read from, and its id there: this repository's, or a view of a published one. */
export async function sessionSource(
  id: string,
  remote: z.infer<typeof RemoteOption>,
): Promise<{ store: Store; id: string; published?: string; remote?: string }> {
  const store = await commandStore(process.cwd());
  if (remote === undefined || remote === false) {
    const here = await resolveNudgeId(store, id).catch(async (error: unknown) => {
      // Not here, but fetched from a remote: say where it is, rather than "no session matches".
      const { fetchedElsewhere } = await import("../sync/fetched-elsewhere.js");
      const found =
        error instanceof NoSuchSession && error.matches.length === 0 && /^[0-9a-f]{1,10}$/.test(id)
          ? await fetchedElsewhere(store, id)
          : null;
      if (!found) throw error;
      const flag = found.remote
        ? ` --remote ${shellQuote(found.remote)}`
        : " --remote <the remote you fetched it from>";
      throw new UserError(
        `no session here matches "${id}": ${found.id} is a published session fetched from ${found.remote ? visible(found.remote) : "a remote"}, not pulled`,
        `look at it where it is: nudge session show ${found.id}${flag} · or pull it here: nudge session pull ${found.id}${flag}`,
      );
    });
    return { store, id: here };
  }
  // Loaded only here: a remote view checks the published session as an import does (the import's
  // reader, tar headers, git bundles), which show, diff and replay of a local session never need.
  const [{ resolveRemote }, { openRemoteView }] = await Promise.all([
    import("../sync/sync-remote.js"),
    import("../sync/remote-view.js"),
  ]);
  const where = await resolveRemote(store, remote === true ? undefined : remote);
  const view = await openRemoteView(store, where, id);
  return { store: view.store, id: view.id, published: view.published, remote: where.label };
}

/** A nudge session for a command that needs its code (rewind, fork, export): one of claude's own is refused, saying why. */
export async function resolveRecorded(store: Store, id: string, doing: string): Promise<StoredSession> {
  return loadSession(store, await resolveRecordedId(store, id, doing));
}

/** The recorded session an id or prefix names (only its id: the session is not read), as resolveRecorded says it. */
export async function resolveRecordedId(store: Store, id: string, doing: string): Promise<string> {
  return resolveNudgeId(store, id, doing);
}
