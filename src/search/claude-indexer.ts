/**
 * The background process that indexes claude's own sessions (claude-index.ts): started detached by
 * a search that finds some not indexed, so the search answers at once from what is indexed. One at
 * a time per store: its pid is kept in `<store>/search/claude-indexer.pid` while it runs.
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Store } from "../store/store.js";
import { claudeOwnSessions } from "../live/claude-own-sessions.js";
import { indexClaudeSession, notIndexed } from "./claude-index.js";
import { indexFile, openSearchDb } from "./search-db.js";

function pidFile(store: Store): string {
  return path.join(path.dirname(indexFile(store)), "claude-indexer.pid");
}

/** Is an indexer running for this store now? */
function indexerRunning(store: Store): boolean {
  try {
    const pid = Number(readFileSync(pidFile(store), "utf8").trim());
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Start the indexer, detached (it outlives this command), unless one runs. */
export function startClaudeIndexer(store: Store, allProjects: boolean): void {
  if (indexerRunning(store) || !process.argv[1]) return;
  const child = spawn(
    process.execPath,
    [process.argv[1], "session", "index-claude", ...(allProjects ? ["--all-projects"] : [])],
    {
      cwd: store.repoRoot,
      env: process.env,
      detached: true,
      stdio: "ignore",
    },
  );
  child.on("error", () => undefined);
  child.unref();
}

/** The indexer's work: every session not indexed, the one used last first; a session that cannot be read is left for the next run. */
export async function runClaudeIndexer(store: Store, allProjects: boolean): Promise<number> {
  if (indexerRunning(store)) return 0;
  const file = pidFile(store);
  writeFileSync(file, `${process.pid}\n`);
  const db = openSearchDb(store);
  let done = 0;
  try {
    for (const s of notIndexed(db, await claudeOwnSessions(store, { allProjects }))) {
      try {
        await indexClaudeSession(db, s);
        done++;
      } catch {
        // removed meanwhile, unreadable: the next search starts another run
      }
    }
  } finally {
    db.close();
    rmSync(file, { force: true });
  }
  return done;
}
