/** The store a command works in, with what a killed nudge left half done settled first (cut-off-recovery.ts). */
import { openStore, type Store } from "../store/store.js";
import { fastRepoLocation } from "../snapshot/repo-location.js";
import { recoverCutOffWork } from "../store/cut-off-recovery.js";
import { writeErr } from "../terminal/output.js";

export async function commandStore(cwd: string): Promise<Store> {
  const store = await openStore(cwd, process.env, fastRepoLocation);
  await recoverCutOffWork(store, (line) => writeErr(`nudge: ${line}\n`));
  return store;
}
