/**
 * `session show/diff/replay --remote`: a published session looked at without pulling it. It is
 * imported — by `session import` itself, every check included — into a view of its own in the
 * store (`<store>/remote-view/<remote>/<id>/`: a scratch repository that borrows this one's
 * objects, a store, a claude config folder), so the commands read it as they read any session,
 * and nothing lands in this repository, its store or claude's config. A view is used only once
 * its `data` file (written last) names the publication's current commit; otherwise it is made again.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { openStore, sessionIds, type Store } from "../store/store.js";
import * as git from "../snapshot/git.js";
import * as remoteGit from "../snapshot/git-remote.js";
import { syncLock } from "./fetch-published.js";
import { importSession } from "../sharing/import-session.js";
import { fetchData, publishedExport, resolvePublished } from "./pull-session.js";
import { syncRepo, type Remote } from "./sync-remote.js";

export interface RemoteView {
  store: Store;
  /** The session's id in the view. */
  id: string;
  published: string;
}

export async function openRemoteView(store: Store, remote: Remote, given: string): Promise<RemoteView> {
  const published = await resolvePublished(store, remote, given);
  const data = await fetchData(store, remote, published, undefined);
  const commit = data.commit;
  const dir = path.join(store.dir, "remote-view", remote.key, published);
  const marker = path.join(dir, "data");
  const repo = path.join(dir, "repo");
  const viewStore = () => openStore(repo, { ...process.env, NUDGE_STORE: path.join(dir, "store") });
  const current = async () => {
    if ((await fs.readFile(marker, "utf8").catch(() => "")) !== commit) return null;
    const s = await viewStore();
    const [id] = await sessionIds(s);
    return id ? { store: s, id, published } : null;
  };
  const ready = await current();
  if (ready) return ready;
  const lock = await syncLock(store, `making a view of published session ${published}`);
  try {
    const made = await current(); // another nudge made it meanwhile
    if (made) return made;
    await fs.rm(dir, { recursive: true, force: true });
    await remoteGit.borrowingRepository(repo, await git.objectFormat(store.repoRoot), store.commonDir);
    const file = path.join(dir, `nudge-${published}.tar`);
    await publishedExport(await syncRepo(store), data, published, file, undefined);
    const imported = await importSession(await viewStore(), file, {
      force: false,
      dryRun: false,
      env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(dir, "claude") },
    }).catch(async (error: unknown) => {
      await fs.rm(dir, { recursive: true, force: true });
      if (error instanceof UserError)
        throw new UserError(
          `published session ${published} from ${remote.label}: ${error.message.replace(`refusing ${path.basename(file)}: `, "refusing it: ")}`,
          error.hint,
        );
      throw error;
    });
    await fs.rm(file);
    await fs.writeFile(marker, commit);
    return { store: await viewStore(), id: imported.id, published };
  } finally {
    await lock.release();
  }
}
