/**
 * Noticing that files changed, fast and surely: fs.watch on their folder for speed (inotify tells
 * at once), and a poll as well, because fs.watch can miss events (a folder replaced, some file
 * systems, an overflowed queue). Either one only asks for a check; checks are coalesced (events
 * within `settleMs` make one) and never overlap, and the check itself compares what it finds
 * with what it saw last, so a missed or doubled event changes nothing.
 */
import { watch, type FSWatcher } from "node:fs";

export interface ChangeFeed {
  close(): void;
}

export function changeFeed(o: {
  dir: string;
  pollMs: number;
  settleMs: number;
  check: () => Promise<void>;
}): ChangeFeed {
  let watcher: FSWatcher | null = null;
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let again = false;
  let closed = false;

  const run = async () => {
    timer = null;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await o.check().catch(() => undefined); // a bundle being replaced reads badly for a moment: the next check sees it whole
      } while (again && !closed);
    } finally {
      running = false;
    }
  };
  const schedule = () => {
    if (closed || timer) return;
    timer = setTimeout(() => void run(), o.settleMs);
  };
  const attach = () => {
    if (watcher || closed) return;
    try {
      watcher = watch(o.dir, { persistent: false }, schedule);
      // The folder went (a session removed) or cannot be watched: the poll carries on alone.
      watcher.on("error", () => {
        watcher?.close();
        watcher = null;
      });
    } catch {
      watcher = null;
    }
  };
  attach();
  const poll = setInterval(() => {
    attach();
    schedule();
  }, o.pollMs);
  poll.unref();
  return {
    close() {
      closed = true;
      clearInterval(poll);
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}
