/**
 * The sessions this server drives for the page: each one a `runSession` (the same loop the
 * terminal runs) with a `BrowserFrontend`, keyed by session id, so the page can send prompts,
 * answer questions and stop turns. The session layer's own lock keeps a work tree to one
 * recorder: a session a terminal records cannot be started here (the refusal says so), and two
 * pages on one driven session drive the same one. Closing the server stops each turn in flight,
 * which is kept as interrupted, and waits until every bundle is complete and every lock released.
 */
import { resolveSession, type Store } from "../../store/store.js";
import type { ClaudeFlags } from "../../claude/claude-process.js";
import { locateClaude } from "../../claude/locate-claude.js";
import { claudeConfigDir } from "../../claude/transcript.js";
import { UserError } from "../../base/errors.js";
import { loadRules } from "../../rules/load-rules.js";
import type { Conversation } from "../../live/conversation.js";
import type { SessionChoice } from "../../live/open-session.js";
import { rulesGuard } from "../../live/rules-guard.js";
import { runSession } from "../../live/run-session.js";
import { BackgroundIndexer } from "../../search/background-index.js";
import { BrowserFrontend } from "./browser-frontend.js";
import type { DrivenState } from "./live-types.js";

export interface StartLive {
  choice: SessionChoice;
  prompt: string;
  flags: Omit<ClaudeFlags, "resume" | "passthrough">;
}

interface Driven {
  /** The work tree its claude works in: one driven session each, as one recorder each. */
  root: string;
  frontend: BrowserFrontend;
  /** null while the session starts (a question about changed files may be asked before it runs). */
  conversation: Conversation | null;
  done: Promise<void>;
}

export class LivePool {
  private readonly driven = new Map<string, Driven>();
  private readonly listeners = new Map<string, Set<() => void>>();
  /** Sessions that went on in another while driven here: the old id leads to the new. */
  private readonly moved = new Map<string, string>();
  private closing = false;
  /** Starts not yet recording: counted against the bound too. */
  private starting = 0;
  /** The work trees of those starts. */
  private readonly launching = new Set<string>();
  /** Each repository's search index, kept current as the sessions driven here save turns. */
  private readonly indexers = new Map<string, BackgroundIndexer>();
  /** How sessions that ended here ended (the last state, an error claude gave at start): kept a while for a page that asks after. */
  private readonly finished = new Map<string, { state: DrivenState; at: number }>();

  /** `warn`: a line for the person who started `nudge web` (its stderr). */
  constructor(
    private readonly o: { max: number; claudeBin?: string; env?: NodeJS.ProcessEnv; warn?: (line: string) => void },
  ) {}

  private get env(): NodeJS.ProcessEnv {
    return this.o.env ?? process.env;
  }

  /** Start (or continue) a session of `store`'s repository with its first prompt; resolves with its id once it records, or with why it could not start. */
  async start(store: Store, o: StartLive): Promise<string> {
    if (this.closing) throw new UserError("nudge web is stopping", "start it again");
    // Each is a claude process of its own: bounded, and the page says why.
    if (this.driven.size + this.starting >= this.o.max)
      throw new UserError(
        `${this.o.max === 1 ? "a session is" : `${this.o.max} sessions are`} already driven from this page (--max-live ${this.o.max})`,
        "end one (End session), or restart nudge web with a higher --max-live",
      );
    this.starting++;
    try {
      const root =
        o.choice.kind === "resume" ? (await resolveSession(store, o.choice.id)).manifest.repo.root : store.repoRoot;
      // This process holds the work tree's lock for the session it drives there, and a lock lets
      // its own holder in again: the refusal a second nudge would get is made here.
      const there = [...this.driven.entries()].find(([, d]) => d.root === root);
      if (there || this.launching.has(root)) {
        throw new UserError(
          `session ${there?.[0] ?? "(starting)"} is already driven from this page in this work tree`,
          "one session records a work tree at a time: end it (End session), or continue a session of another work tree (a fork made with --worktree)",
        );
      }
      this.launching.add(root);
      try {
        return await this.launch(store, o, root);
      } finally {
        this.launching.delete(root);
      }
    } finally {
      this.starting--;
    }
  }

  private async launch(store: Store, o: StartLive, root: string): Promise<string> {
    const bin = await locateClaude(this.o.claudeBin, this.env);
    const rules = await loadRules(store.repoRoot);
    let id: string | null = null;
    const frontend = new BrowserFrontend(
      () => {
        if (id === null) return;
        id = this.follow(id); // a /fork or /compact goes on in another session: the entry moves with it
        this.emit(id);
      },
      {
        firstPrompt: o.prompt,
        cwd: store.repoRoot,
        dropped: (prompt) =>
          this.o.warn?.(
            `session ${id ?? "(not started)"}: a prompt from the page was not sent, the session ended first: ${JSON.stringify(prompt)}`,
          ),
      },
    );
    return new Promise<string>((resolve, reject) => {
      const done = runSession({
        store,
        cwd: store.repoRoot,
        bin,
        claudeConfigDir: claudeConfigDir(this.env),
        env: this.env,
        choice: o.choice,
        flags: { ...o.flags, passthrough: [] },
        firstPrompt: o.prompt,
        frontend,
        guard: rulesGuard(rules, store.repoRoot, (line) => frontend.say(`⚖ ${line}`)),
        onTurnSaved: (sessionId) => this.indexerOf(store).touch(sessionId),
        onRecording: (sessionId) => {
          id = sessionId;
          // One driver per session: a second start of the same one is refused by its work tree's lock before this.
          this.driven.set(id, {
            root,
            frontend,
            conversation: null,
            done: done.then(
              () => undefined,
              () => undefined,
            ),
          });
          resolve(id);
        },
        onConversation: (conversation) => {
          const d = id === null ? undefined : this.driven.get(id);
          if (d) d.conversation = conversation;
          if (this.closing) conversation.stop(); // the server began stopping while the session started
        },
      }).then(
        (outcome) => {
          frontend.finish();
          if (id) this.forget(id, outcome.id);
        },
        (error: unknown) => {
          frontend.error((error as Error).message, (error as { hint?: string }).hint);
          frontend.finish();
          if (id) this.forget(id, id);
          reject(error); // before it recorded: the page's start answers with it; after, ignored
        },
      );
    });
  }

  get(id: string): Driven | undefined {
    return this.driven.get(this.current(id));
  }

  /** Where a session driven here went on (/fork, /compact), followed as far as it went. */
  private current(id: string): string {
    let at = id;
    for (let hops = 0; this.moved.has(at) && hops < 100; hops++) at = this.moved.get(at)!;
    return at;
  }

  /** What the page shows of a driven session, with the id it records under now; null when none is driven by that id. */
  stateOf(id: string): DrivenState | null {
    const d = this.get(id);
    if (d) return { ...d.frontend.state(), sessionId: d.conversation?.sessionId ?? this.current(id) };
    return this.finished.get(this.current(id))?.state ?? null;
  }

  /** The session went on in another (/fork, /compact): move its entry, and tell the page of the old one where it went. */
  private follow(id: string): string {
    const d = this.driven.get(id);
    const now = d?.conversation?.sessionId;
    if (!d || !now || now === id) return id;
    this.driven.delete(id);
    this.driven.set(now, d);
    // Back where it was (/undo of a fork): the old move is undone, never a loop of two.
    this.moved.delete(now);
    this.moved.set(id, now);
    for (const listener of this.listeners.get(id) ?? []) listener();
    return now;
  }

  /** Calls back when what the page shows of a driven session changed; returns the unsubscribe. */
  on(id: string, listener: () => void): () => void {
    const set = this.listeners.get(id) ?? new Set();
    set.add(listener);
    this.listeners.set(id, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(id);
    };
  }

  get size(): number {
    return this.driven.size;
  }

  /** Stop every session this server drives (a turn in flight is kept as interrupted) and wait until each is saved. */
  async closeAll(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.driven.values()].map((d) => stopDriven(d)));
    await Promise.all([...this.indexers.values()].map((i) => i.close()));
  }

  private indexerOf(store: Store): BackgroundIndexer {
    let indexer = this.indexers.get(store.dir);
    if (!indexer) this.indexers.set(store.dir, (indexer = new BackgroundIndexer(store)));
    return indexer;
  }

  private emit(id: string): void {
    for (const listener of this.listeners.get(id) ?? []) listener();
  }

  /** The session ended: the page keeps its last state a moment (a last event), then the entry goes. */
  private forget(id: string, finalId: string): void {
    this.emit(id);
    if (finalId !== id) this.emit(finalId);
    const d = this.driven.get(id);
    // What it said last (claude's refusal to start above all, its session discarded) stays readable a while.
    if (d) this.finished.set(id, { state: { ...d.frontend.state(), sessionId: id }, at: Date.now() });
    for (const [old, f] of this.finished) if (Date.now() - f.at > FINISHED_KEPT_MS) this.finished.delete(old);
    this.driven.delete(id);
  }
}

/** How long the last state of a session that ended here stays readable. */
const FINISHED_KEPT_MS = 10 * 60_000;

/** A claude that does not stop within this after being asked is stopped harder, as Ctrl-C pressed again does. */
const STOP_GRACE_MS = 5_000;

/** Stop the turn and the session; a claude that does not stop is stopped, then killed (its turn kept as interrupted). */
async function stopDriven(d: Driven): Promise<void> {
  // Not running yet: what it asks is answered no, and once it runs it is stopped at once (onConversation).
  if (!d.conversation) d.frontend.finish();
  d.conversation?.stop();
  for (let tries = 0; tries < 2; tries++) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), STOP_GRACE_MS)));
    const outcome = await Promise.race([d.done.then(() => "done" as const), late]);
    clearTimeout(timer);
    if (outcome === "done") return;
    d.conversation?.interrupt();
  }
  await d.done;
}
