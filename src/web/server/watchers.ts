/**
 * What the live pages listen to: one watch per session, shared by every stream open on it (ten
 * pages on one live session cost one watch), and one on the list of sessions; each stops when its
 * last listener goes. A watch compares the bundle's files (size, time, inode) with what it saw
 * last and says what changed in the terms of the HTTP API: `session` (the journal or the header:
 * a turn begun or saved, the state changed), `turn` (claude wrote lines: to the turn in flight,
 * or after the last saved one), `sessions` (one was added, changed or removed).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { isLocked } from "../../store/locks.js";
import { bundleDir, bundleFiles, type Store } from "../../store/store.js";
import { resolveSessionKept } from "../../view/manifest-cache.js";
import { changeFeed, type ChangeFeed } from "./change-feed.js";
import { ClaudeWatch } from "./claude-watch.js";

export type LiveEvent =
  | { event: "session"; data: { turns: number; pending: number | null } }
  | { event: "turn"; data: { n: number } }
  | { event: "sessions"; data: Record<string, never> }
  /** claude's own sessions of this repository (a transcript added, written, removed): the list is asked again. */
  | { event: "claude-sessions"; data: Record<string, never> }
  /** One of claude's own sessions written (on its own stream): its page is asked again. */
  | { event: "claude-session"; data: Record<string, never> }
  /** A session this server drives: its prompt box, question and notices (src/web/live/). */
  | { event: "live"; data: object };
export type Listener = (e: LiveEvent) => void;

/** fs.watch answers within a few ms; the poll only catches what it misses. */
const SESSION_POLL_MS = 500;
const LIST_POLL_MS = 1_000;
/** Lines claude writes in a burst make one event. */
const SETTLE_MS = 10;

interface Watch {
  listeners: Set<Listener>;
  feed: ChangeFeed;
}

export class Watchers {
  private readonly sessions = new Map<string, Watch>();
  private list: Watch | null = null;
  /** claude's own transcripts: watched only while a page listens. */
  readonly claude: ClaudeWatch;

  constructor(private readonly store: Store) {
    this.claude = new ClaudeWatch(store);
  }

  /** Follow one session (by full id); returns the unsubscribe. */
  onSession(id: string, listener: Listener): () => void {
    let w = this.sessions.get(id);
    if (!w) {
      const listeners = new Set<Listener>();
      w = { listeners, feed: sessionFeed(this.store, id, (e) => listeners.forEach((l) => l(e))) };
      this.sessions.set(id, w);
    }
    return this.add(w, listener, () => this.sessions.delete(id));
  }

  onList(listener: Listener): () => void {
    if (!this.list) {
      const listeners = new Set<Listener>();
      this.list = {
        listeners,
        feed: listFeed(this.store, () => listeners.forEach((l) => l({ event: "sessions", data: {} }))),
      };
    }
    return this.add(this.list, listener, () => (this.list = null));
  }

  /** How many watches are running (the tests' and the bench's view of sharing). */
  get count(): number {
    return this.sessions.size + (this.list ? 1 : 0);
  }

  closeAll(): void {
    for (const w of this.sessions.values()) w.feed.close();
    this.sessions.clear();
    this.list?.feed.close();
    this.list = null;
    this.claude.closeAll();
  }

  private add(w: Watch, listener: Listener, forget: () => void): () => void {
    w.listeners.add(listener);
    return () => {
      if (!w.listeners.delete(listener) || w.listeners.size > 0) return;
      w.feed.close();
      forget();
    };
  }
}

const mark = async (file: string) => {
  const s = await fs.stat(file).catch(() => null);
  return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : "-";
};

function sessionFeed(store: Store, id: string, emit: Listener): ChangeFeed {
  const dir = bundleDir(store, id);
  const files = bundleFiles(dir);
  const seen = { conversation: "", book: "" };
  const state = { turns: 0, pending: null as number | null, last: 0 };
  const read = async () => {
    // Kept while its files are unchanged: the page's own fetches after this event then parse nothing again.
    const { manifest } = await resolveSessionKept(store, id);
    state.turns = manifest.turns.filter((t) => t.n > 0).length;
    state.pending = manifest.unsaved.at(-1)?.n ?? null;
    state.last = manifest.turns.at(-1)?.n ?? 0;
  };
  // What it is now is the starting point: the page has just fetched it.
  const ready = (async () => {
    [seen.conversation, seen.book] = await Promise.all([mark(files.conversation), bookkeeping(files)]);
    await read().catch(() => undefined);
  })();
  return changeFeed({
    dir,
    pollMs: SESSION_POLL_MS,
    settleMs: SETTLE_MS,
    check: async () => {
      await ready;
      const [conversation, book] = await Promise.all([mark(files.conversation), bookkeeping(files)]);
      // The journal first: lines that came with a turn just begun belong to it.
      if (book !== seen.book) {
        seen.book = book;
        await read().catch(() => undefined); // removed or damaged: the page's refetch says so
        emit({ event: "session", data: { turns: state.turns, pending: state.pending } });
      }
      if (conversation !== seen.conversation) {
        seen.conversation = conversation;
        emit({ event: "turn", data: { n: state.pending ?? state.last } });
      }
    },
  });
}

/**
 * The journal, the header and whether the lock is held, as one mark: any of them changing is a
 * `session` event. The lock's part is there for a recording whose nudge died (kill -9, a crash):
 * that changes no file, only whether the lock's holder still runs, and the session is crashed.
 * A lock file is there only while a session is recorded, or after its recorder died.
 */
async function bookkeeping(files: ReturnType<typeof bundleFiles>): Promise<string> {
  const [journal, manifest, lock] = await Promise.all([
    mark(files.journal),
    mark(files.manifest),
    lockMark(files.lock),
  ]);
  return `${journal}|${manifest}|${lock}`;
}

async function lockMark(file: string): Promise<string> {
  const there = await fs.stat(file).then(
    () => true,
    () => false,
  );
  return !there ? "-" : (await isLocked(file)) ? "held" : "left";
}

function listFeed(store: Store, emit: () => void): ChangeFeed {
  const dir = path.join(store.dir, "sessions");
  const sign = async () => {
    const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => !n.startsWith(".")).sort();
    const marks = await Promise.all(
      names.map(async (n) => `${n}=${await bookkeeping(bundleFiles(path.join(dir, n)))}`),
    );
    return marks.join("\n");
  };
  let seen: Promise<string> | string = sign();
  return changeFeed({
    dir,
    pollMs: LIST_POLL_MS,
    settleMs: 50,
    check: async () => {
      const now = await sign();
      if (now === (await seen)) return;
      seen = now;
      emit();
    },
  });
}
