/**
 * One thing at a time writes a work tree's files or nudge's index for it: a recording (for its
 * whole life: its claude may write any moment), a rewind, an undo, a fork put in place. The lock
 * is taken before the first read the write depends on (a rewind's capture of the work tree), so
 * two of them can never plan against the same state and both apply.
 *
 * Within one process it is re-entrant: an in-session /rewind runs under the recording's own lock.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { acquireLock, holderText, type HeldLock, type LockInfo } from "./locks.js";
import type { Store } from "./store.js";

const held = new Map<string, { lock: HeldLock; count: number }>();

export function workTreeLockFile(store: Store, root: string): string {
  return path.join(store.dir, "locks", `worktree-${createHash("sha1").update(root).digest("hex").slice(0, 12)}.lock`);
}

export interface WorkTreeLockOptions {
  /** What this process is doing, as another process's message names it. */
  what: string;
  /** Wait this long for a short operation (another rewind) to finish before refusing. */
  waitMs?: number;
}

export async function lockWorkTree(store: Store, root: string, o: WorkTreeLockOptions): Promise<HeldLock> {
  const file = workTreeLockFile(store, root);
  const mine = held.get(file);
  if (mine) {
    mine.count++;
    return { setClaude: (pid) => mine.lock.setClaude(pid), release: async () => release(file) };
  }
  // A recording holds the work tree for the whole session: waiting for it only delays the refusal
  // (or lets a rewind asked for during it run the moment it ends). Short commands are waited for.
  const waitsFor = (holder: LockInfo) => !(holder.what ?? "").startsWith("recording");
  const lock = await acquireLock(file, {
    what: o.what,
    waitMs: o.waitMs ?? 0,
    waitsFor,
    busy: (holder) => busyError(root, holder),
  });
  held.set(file, { lock, count: 1 });
  return { setClaude: (pid) => lock.setClaude(pid), release: async () => release(file) };
}

/** Does this process hold the work tree's lock (a plan and its apply must run under it)? */
export function holdsWorkTree(store: Store, root: string): boolean {
  return held.has(workTreeLockFile(store, root));
}

async function release(file: string): Promise<void> {
  const mine = held.get(file);
  if (!mine) return;
  if (--mine.count > 0) return;
  held.delete(file);
  await mine.lock.release();
}

/** The work tree is being recorded by another nudge: the terminal's hint, and the session (for a page to word its own). */
export class RecordingElsewhere extends UserError {
  constructor(
    message: string,
    hint: string,
    readonly session: string | null,
  ) {
    super(message, hint);
  }
}

/** How a recording from claude's own UI (`claude run --tui`) ends its lock's `what`. */
export const CLAUDE_UI = "in claude's own UI";

function busyError(root: string, holder: LockInfo): UserError {
  const what = holder.what ?? "working";
  if (what.startsWith("recording")) {
    const session = /session (\w+)/.exec(what)?.[1] ?? null;
    if (what.endsWith(CLAUDE_UI)) return new RecordingElsewhere(...fromClaudeUi(session ?? "a session", root), session);
    return new RecordingElsewhere(
      `${session ? `session ${session}` : "a session"} is being recorded by another nudge process in ${root} (${holderText(holder)})`,
      "use /rewind, /fork or /undo inside that session, or quit it first (nudge claude run --force records alongside it)",
      session,
    );
  }
  return new UserError(
    `another nudge is ${what} in ${root} (${holderText(holder)})`,
    "wait for it to finish, then run the command again",
  );
}

/** A session recorded from claude's own UI: /rewind there is claude's own, not nudge's; the recorder is claude's hooks. */
export function fromClaudeUi(session: string, root: string): [message: string, hint: string] {
  return [
    `session ${session} is being recorded from claude's own UI (hooks) in ${root}`,
    "end that claude session first, then run the command again (claude's own /rewind there is claude's, not nudge's)",
  ];
}
