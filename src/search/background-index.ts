/**
 * Keeping the search index current while sessions record: each saved turn's session is handed to
 * a worker thread (index-worker.ts), one at a time, so a search after a long day finds the index
 * already up to date instead of catching up on every turn then. Off the user's path: the worker
 * starts on the first saved turn, on its own thread; a failure disables it quietly (the next
 * search catches up, as it always can). Closing waits a moment for the update in progress.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Store } from "../store/store.js";

const WORKER = workerScript();

/** How long ending a session waits for the index's last update before leaving it to the next search. */
const CLOSE_WAIT_MS = 3_000;

export class BackgroundIndexer {
  private worker: Worker | null = null;
  private failed = false;
  private busy: string | null = null;
  private readonly queue = new Set<string>();
  private idle: Array<() => void> = [];

  constructor(
    private readonly store: Store,
    /** The worker's script; null: none can run here (nudge run from its sources), so nothing is done. */
    private readonly script: string | null = WORKER,
  ) {}

  /** A turn of session `id` was saved: index it once the worker is free. */
  touch(id: string): void {
    if (this.failed || this.script === null) return;
    this.queue.add(id);
    this.next();
  }

  /** Wait (a little) for the updates asked for, then stop the worker. */
  async close(waitMs = CLOSE_WAIT_MS): Promise<void> {
    if (!this.worker) return;
    if (this.busy !== null || this.queue.size) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idle.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
      ]);
      clearTimeout(timer);
    }
    const worker = this.worker;
    this.worker = null;
    this.failed = true; // closed: later touches do nothing
    await worker.terminate();
  }

  private next(): void {
    if (this.busy !== null) return;
    const id = this.queue.values().next().value;
    if (id === undefined) {
      for (const resolve of this.idle.splice(0)) resolve();
      return;
    }
    this.queue.delete(id);
    this.busy = id;
    this.start().postMessage(id);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script!, { workerData: { store: this.store } });
    worker.unref(); // never what keeps nudge running
    worker.on("message", () => {
      this.busy = null;
      this.next();
    });
    worker.on("error", () => this.fail());
    worker.on("exit", () => this.fail());
    this.worker = worker;
    return worker;
  }

  private fail(): void {
    this.failed = true;
    this.worker = null;
    this.busy = null;
    this.queue.clear();
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

/**
 * The built worker: beside the bundle (dist/index-worker.mjs, this module being in dist/ or
 * dist/chunks/), or beside this module as tsc built it (dist/search/index-worker.js). Run from the
 * TypeScript sources (a test importing them) there is none, and nothing is indexed in the background.
 */
function workerScript(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    path.join(here, "index-worker.mjs"),
    path.join(path.dirname(here), "index-worker.mjs"),
    path.join(here, "index-worker.js"),
  ];
  return candidates.find((file) => existsSync(file)) ?? null;
}
