/**
 * At the start of every command that opens the store (gc shows them in its plan instead): work a
 * killed nudge left half done — an import or pull, a fork into a worktree, a push, an export — is
 * settled from its journal (cut-off-work.ts) before anything reads or changes what it touched. A
 * half-installed session is so never listed, continued or removed as if it were whole, and one
 * that was continued anyway is kept. Said on stderr whenever something was undone or kept.
 */
import path from "node:path";
import { UserError, errorMessage } from "../base/errors.js";
import { clearCutOff, findCutOffWork, type Journal } from "./cut-off-work.js";
import { acquireLock, type HeldLock } from "./locks.js";
import type { Store } from "./store.js";

/** One import runs at a time in a store; the lock its installing holds (import-session.ts). */
export function importLockFile(store: Store): string {
  return path.join(store.dir, "locks", "import.lock");
}

export async function recoverCutOffWork(store: Store, say: (line: string) => void): Promise<void> {
  const found = await findCutOffWork(store);
  if (found.length === 0) return;
  // A running import clears cut-off imports itself, under its lock, before it installs: left to it.
  const importLock = found.some((c) => c.kind === "import") ? await tryImportLock(store) : null;
  try {
    for (const c of found) {
      if (c.kind === "import" && !importLock) continue;
      try {
        const { outcome, journal } = await clearCutOff(store, c.dir);
        if (outcome === "undone")
          say(
            `${c.what} was cut off (its nudge was killed): what it had done is undone${c.kind === "import" ? "; run it again" : ""}`,
          );
        if (outcome === "kept")
          say(
            `${c.what} was cut off (its nudge was killed) after its session was in place, and that session was used since: it is kept${setAsideNote(journal)}`,
          );
      } catch (error) {
        say(
          `${c.what} was cut off (its nudge was killed), and undoing it failed: ${errorMessage(error)}; nudge session gc tries again`,
        );
      }
    }
  } finally {
    await importLock?.release();
  }
}

async function tryImportLock(store: Store): Promise<HeldLock | null> {
  return acquireLock(importLockFile(store), {
    what: "undoing a cut-off import",
    busy: () => new UserError("an import is running"),
  }).catch(() => null);
}

/** Where what the import replaced was kept (with --force), for the user to take back by hand. */
function setAsideNote(journal: Journal | null): string {
  const aside = journal?.steps.find((s) => s.kind === "renamed" && path.basename(s.to) === "session");
  return aside && aside.kind === "renamed" ? `; the session it replaced is kept in ${path.dirname(aside.to)}` : "";
}
