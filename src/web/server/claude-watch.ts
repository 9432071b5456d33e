/**
 * claude's own sessions, watched for the page: fs.watch on claude's folders of this repository
 * (`<config>/projects/<encoded work tree>`, and those of folders inside one) and on
 * `<config>/projects` for such a folder appearing (on `<config>` while that is not there). Nothing
 * is polled and no transcript is read here: an event only says "look again", and writes within
 * SETTLE_MS make one (claude writes a turn in a few bursts). No folder, no config dir: no watch.
 */
import { watch, type FSWatcher } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { claudeConfigDir, encodeProjectDir } from "../../claude/transcript.js";
import { workTreesOf } from "../../live/claude-session-scan.js";
import type { Store } from "../../store/store.js";

/** Long enough to take a burst of lines as one event, short enough to feel at once. */
const SETTLE_MS = 150;
/**
 * The list, for a transcript written (not added or removed): its row's "last used" and turns can
 * wait this long, and a session nudge records live (claude writes its transcript too) does not
 * make the sessions page ask for claude's list several times a second.
 */
const WRITTEN_MS = 1_000;

type Notify = () => void;

/** Listeners told once per burst, `ms` after its first change (a sooner one asked for wins). */
function settled(listeners: Set<Notify>): { poke: (ms?: number) => void; close: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let due = Infinity;
  return {
    poke(ms = SETTLE_MS) {
      if (timer !== undefined && due <= Date.now() + ms) return;
      clearTimeout(timer);
      due = Date.now() + ms;
      timer = setTimeout(() => {
        timer = undefined;
        due = Infinity;
        for (const l of listeners) l();
      }, ms);
    },
    close: () => clearTimeout(timer),
  };
}

/** fs.watch, or null when the folder is not there (or cannot be watched); a watch that fails is closed. */
function watchDir(dir: string, onName: (name: string | null, type: string) => void): FSWatcher | null {
  try {
    const w = watch(dir, { persistent: false }, (type, name) => onName(name === null ? null : String(name), type));
    w.on("error", () => w.close());
    return w;
  } catch {
    return null;
  }
}

const isTranscript = (name: string | null) => name === null || name.endsWith(".jsonl");

export class ClaudeWatch {
  private list: { listeners: Set<Notify>; close: () => void } | null = null;
  private readonly files = new Map<string, { listeners: Set<Notify>; close: () => void }>();

  constructor(private readonly store: Store) {}

  /** A transcript of this repository's added, written or removed; returns the unsubscribe. */
  onList(listener: Notify): () => void {
    if (!this.list) {
      const listeners = new Set<Notify>();
      this.list = { listeners, close: this.watchRepoFolders(listeners) };
    }
    const list = this.list;
    list.listeners.add(listener);
    return () => {
      if (!list.listeners.delete(listener) || list.listeners.size > 0) return;
      list.close();
      if (this.list === list) this.list = null;
    };
  }

  /** One transcript written (a turn added, a reply); returns the unsubscribe. */
  onFile(file: string, listener: Notify): () => void {
    let w = this.files.get(file);
    if (!w) {
      const listeners = new Set<Notify>();
      const tell = settled(listeners);
      const name = path.basename(file);
      const watcher = watchDir(path.dirname(file), (n) => (n === null || n === name) && tell.poke());
      w = { listeners, close: () => (tell.close(), watcher?.close()) };
      this.files.set(file, w);
    }
    const watched = w;
    watched.listeners.add(listener);
    return () => {
      if (!watched.listeners.delete(listener) || watched.listeners.size > 0) return;
      watched.close();
      this.files.delete(file);
    };
  }

  closeAll(): void {
    this.list?.close();
    this.list = null;
    for (const w of this.files.values()) w.close();
    this.files.clear();
  }

  /** Watches this repository's folders of claude's, telling `listeners`; returns the close. */
  private watchRepoFolders(listeners: Set<Notify>): () => void {
    const tell = settled(listeners);
    const config = claudeConfigDir();
    const root = path.join(config, "projects");
    const folders = new Map<string, FSWatcher | null>();
    let closed = false;
    let rootWatch: FSWatcher | null = null;
    let configWatch: FSWatcher | null = null;
    let prefixes: string[] | null = null;
    // claude's folder for the work tree, or for a folder inside it (`-a-b` and `-a-b-sub`).
    const ours = (name: string) => prefixes?.some((p) => name === p || name.startsWith(p + "-")) ?? false;
    const follow = (name: string) => {
      if (closed || folders.has(name) || !ours(name)) return false;
      folders.set(
        name,
        // "rename": a transcript added or removed; "change": one written.
        watchDir(
          path.join(root, name),
          (n, type) => isTranscript(n) && tell.poke(type === "rename" ? SETTLE_MS : WRITTEN_MS),
        ),
      );
      return true;
    };
    const watchRoot = async (): Promise<boolean> => {
      if (closed || rootWatch) return true;
      rootWatch = watchDir(root, (n) => {
        // A folder of ours appearing, or going (its sessions then leave the list).
        if (n !== null && (follow(n) || ours(n))) tell.poke();
      });
      if (!rootWatch) return false;
      configWatch?.close();
      configWatch = null;
      for (const name of await readdir(root).catch(() => [] as string[])) follow(name);
      return true;
    };
    void (async () => {
      const roots = await workTreesOf(this.store.repoRoot, this.store.commonDir);
      prefixes = roots.map(encodeProjectDir);
      if ((await watchRoot()) || closed) return;
      // No projects folder yet (claude never ran with this config): wait for it in the config dir.
      configWatch = watchDir(config, (n) => {
        if (n === "projects" || n === null) void watchRoot().then((ok) => ok && tell.poke());
      });
    })();
    return () => {
      closed = true;
      tell.close();
      rootWatch?.close();
      configWatch?.close();
      for (const w of folders.values()) w?.close();
    };
  }
}
