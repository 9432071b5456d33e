/**
 * The background process that builds the search index (`nudge session index-claude`, hidden):
 * started detached by a search that finds many recorded sessions not indexed (the first search
 * over a large store, or an index rebuilt after an upgrade) or claude's own sessions not indexed,
 * so the search answers at once from what is indexed and says how much is left. It catches up on
 * the recorded sessions first (newest first), then claude's own, each session its own transaction.
 * One at a time per store: its pid is kept in `<store>/search/claude-indexer.pid` while it runs.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Store } from "../store/store.js";
import { claudeOwnSessions } from "../live/claude-own-sessions.js";
import { catchUp } from "./catch-up.js";
import { notIndexed } from "./claude-stamp.js";
import { indexFile, openSearchDb } from "./search-db.js";

/** After indexing this many sessions at once, FTS5's segments are merged into one: a smaller index, fewer lookups a query. */
const OPTIMIZE_AFTER = 20;

function pidFile(store: Store): string {
  return path.join(path.dirname(indexFile(store)), "claude-indexer.pid");
}

/** Is an indexer running for this store now? */
export function indexerRunning(store: Store): boolean {
  try {
    const pid = Number(readFileSync(pidFile(store), "utf8").trim());
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The built CLI this module belongs to (dist/nudge.mjs, this module being in dist/, dist/chunks/
 * or dist/search/); null when nudge runs from its sources (a test or the bench importing them):
 * then there is nothing to start, and the caller indexes in-line.
 */
export const INDEXER_CLI = builtCli();

function builtCli(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return [path.join(here, "nudge.mjs"), path.join(here, "..", "nudge.mjs")].find((f) => existsSync(f)) ?? null;
}

/** Start the indexer, detached (it outlives this command), unless one runs; false when none can be started here. */
export function startIndexer(store: Store, allProjects: boolean): boolean {
  if (INDEXER_CLI === null) return false;
  if (indexerRunning(store)) return true;
  const child = spawn(
    process.execPath,
    [INDEXER_CLI, "session", "index-claude", ...(allProjects ? ["--all-projects"] : [])],
    { cwd: store.repoRoot, env: process.env, detached: true, stdio: "ignore" },
  );
  child.on("error", () => undefined);
  child.unref();
  return true;
}

/**
 * The indexer's work: the recorded sessions not indexed, then claude's own, the one used last
 * first; a session that cannot be read is left for the next run. Returns how many were indexed.
 */
export async function runClaudeIndexer(store: Store, allProjects: boolean): Promise<number> {
  if (indexerRunning(store)) return 0;
  const file = pidFile(store);
  const db = openSearchDb(store);
  writeFileSync(file, `${process.pid}\n`);
  let done = 0;
  try {
    done += (await catchUp(db, store)).sessions;
    // Here, not at the top: a search loads this file to start the indexer, and needs none of the view layer indexing reads through.
    const { indexClaudeSession } = await import("./claude-index.js");
    for (const s of notIndexed(db, await claudeOwnSessions(store, { allProjects }))) {
      try {
        await indexClaudeSession(db, s);
        done++;
      } catch {
        // removed meanwhile, unreadable: the next search starts another run
      }
    }
    if (done >= OPTIMIZE_AFTER) db.exec("INSERT INTO fts (fts) VALUES ('optimize')");
  } finally {
    db.close();
    rmSync(file, { force: true });
  }
  return done;
}
