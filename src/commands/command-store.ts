/** The store a command works in, with what a killed nudge left half done settled first (cut-off-recovery.ts). */
import { openStore, type Store } from "../store/store.js";
import { recoverCutOffWork } from "../store/cut-off-recovery.js";
import type { RepoLocation } from "../snapshot/repo-location.js";
import { writeErr } from "../terminal/output.js";

/** `locate`: how the repository is found (default: git's answer; quickRepoLocation starts no git for the usual shapes). */
export async function commandStore(cwd: string, locate?: (cwd: string) => Promise<RepoLocation>): Promise<Store> {
  const store = await openStore(cwd, process.env, locate);
  await recoverCutOffWork(store, (line) => writeErr(`nudge: ${line}\n`));
  return store;
}
