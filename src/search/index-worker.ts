/**
 * The search index's updates while a session records (background-index.ts): a worker thread of
 * the recording nudge, so SQLite's synchronous writes (tens of ms a turn) never hold the thread
 * that relays claude's stream and the user's prompts. Each message names a session whose turn was
 * saved; the answer comes when its index is up to date (or the update failed: the next search
 * catches up, as after any crash).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Store } from "../store/store.js";
import { indexSession, stampOf } from "./catch-up.js";
import { openSearchDb, type SearchDb } from "./search-db.js";

const store = (workerData as { store: Store }).store;
let db: SearchDb | null = null;

parentPort?.on("message", (id: string) => {
  void (async () => {
    try {
      db ??= openSearchDb(store);
      await indexSession(db, store, id, stampOf(store, id));
    } catch {
      // Damaged, locked past its timeout, a disk full: the next search brings the index up to date.
    }
    parentPort?.postMessage(id);
  })();
});
