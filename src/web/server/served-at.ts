/** Where this server shows a folder's repository: `/` or `/r/<key>/` when it serves one the folder is in, else null. */
import type { RepoSite } from "./app-context.js";

export function servedAt(repos: RepoSite[], cwd: string | null): string | null {
  const inside = (dir: string, root: string) => dir === root || dir.startsWith(root.endsWith("/") ? root : `${root}/`);
  const i = cwd === null ? -1 : repos.findIndex((r) => inside(cwd, r.store.repoRoot));
  return i < 0 ? null : i === 0 ? "/" : `/r/${repos[i]!.key}/`;
}
