/** `session list`'s part for claude's own sessions (never recorded by nudge), and `--all-projects`. */
import { promises as fs } from "node:fs";
import { userCacheDir } from "../base/user-cache.js";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { openStore, type Store } from "../store/store.js";
import { insideAny, scanClaudeSessions, workTreesOf } from "../live/claude-session-scan.js";
import { claudeConfigDir } from "../claude/transcript.js";
import { projectNames } from "../claude/claude-projects.js";
import { formatCost, formatDuration, oneLine, thousands } from "../base/format.js";
import { inertValue } from "../base/inert-text.js";
import type { ClaudeSession } from "../live/claude-own-sessions.js";
import { printJson, printTable, writeOut } from "../terminal/output.js";
import { isDir } from "../base/file-exists.js";

/** Shown ids are at least this long: any unique prefix names the session (the full id is in --json). */
const SHORT_ID = 8;

/** The shortest prefix, of SHORT_ID or more, that no other of `among` begins with (as git shortens a commit). */
function uniquePrefix(id: string, among: string[]): string {
  const near = among.filter((o) => o !== id && o.startsWith(id.slice(0, SHORT_ID)));
  let n = SHORT_ID;
  while (n < id.length && near.some((o) => o.startsWith(id.slice(0, n)))) n++;
  return id.slice(0, n);
}

/** `among`: every id `show` takes a prefix among (idsShowResolves), so that each id shown names its session alone. */
export function printClaudeOwn(
  store: Store,
  rows: ClaudeSession[],
  total: number,
  afterRecorded: boolean,
  among: string[],
): void {
  if (afterRecorded) writeOut("\n");
  writeOut(
    "claude's own sessions of this repository, not recorded by nudge (no code snapshots; make one a nudge session: nudge session adopt <id>):\n",
  );
  // Everything in a transcript is claude's and the user's text: shown, never obeyed.
  const shown = inertValue(rows);
  printTable(
    [
      "ID",
      "SOURCE",
      "STARTED",
      "LAST ACTIVE",
      "BRANCH",
      "TURNS",
      "COST",
      "TIME",
      "FOLDER",
      "FIRST PROMPT",
      "LAST PROMPT",
    ],
    shown.map((r) => [
      uniquePrefix(r.id, among),
      "claude",
      r.startedAt.slice(0, 16).replace("T", " "),
      r.updatedAt.slice(0, 16).replace("T", " "),
      r.branch ?? "",
      r.turns === null ? "?" : String(r.turns),
      formatCost(r.costUsd),
      formatDuration(r.durationMs),
      folderOf(store, r.cwd),
      oneLine(r.firstPrompt ?? "", 30),
      oneLine(r.lastPrompt ?? "", 30),
    ]),
  );
  const left = total - rows.length;
  if (left > 0)
    writeOut(
      `${thousands(left)} older of claude's own not shown (${rows.length} of ${thousands(total)}); every one: nudge session list --all\n`,
    );
}

/** Where a session ran, relative to this work tree ("." here, "src" below it), else its full path (a linked worktree's; as the guide says). */
function folderOf(store: Store, cwd: string | null): string {
  if (cwd === null) return "?";
  const rel = path.relative(store.repoRoot, cwd);
  return rel === "" ? "." : rel.startsWith("..") ? oneLine(cwd, 40) : oneLine(rel, 40);
}

interface ClaudeProjectRow {
  /** claude's folder under <config>/projects: what groups the sessions. */
  folder: string;
  /** The first of `cwds`, or null when no transcript names one. */
  cwd: string | null;
  /** Every directory whose sessions the folder holds (claude's name for it is lossy): projectNames. */
  cwds: string[];
  exists: boolean;
  sessions: number;
  lastActivity: string;
  costUsd: number;
}

/** Where a listing of every project keeps its cache, and the repository it runs in (null: none). */
interface ProjectsPlace {
  cacheDir: string;
  repoRoot: string | null;
  /** This repository's work trees (none outside one): a project in one, or in a folder inside one, is this repository's. */
  workTrees: string[];
}

/** This repository's store, or outside any, the user's cache folder (as the compile cache's). */
export async function projectsPlace(cwd: string): Promise<ProjectsPlace> {
  const { repoLocation } = await import("../snapshot/repo-location.js");
  const located = await repoLocation(cwd).catch((error: unknown) => {
    if (error instanceof UserError) return null; // outside any repository
    throw error;
  });
  if (!located) {
    const cacheDir = userCacheDir();
    await fs.mkdir(cacheDir, { recursive: true });
    return { cacheDir, repoRoot: null, workTrees: [] };
  }
  // In one, a store that cannot be (a bad NUDGE_STORE) is said, as every other command says it.
  const store = await openStore(cwd, process.env, async () => located);
  return {
    cacheDir: store.dir,
    repoRoot: store.repoRoot,
    workTrees: await workTreesOf(store.repoRoot, store.commonDir),
  };
}

/** Every project claude has sessions for, the one used last first: `session list --all-projects`. */
export async function listProjects(place: ProjectsPlace, options: { json?: boolean; limit?: number }): Promise<void> {
  const scan = await scanClaudeSessions(claudeConfigDir(), place.cacheDir, () => true);
  // By the folder claude keeps a session in (what `claude --resume` run there sees), as the web's
  // All projects groups: a session resumed from another folder is that folder's, not where it began.
  const byFolder = new Map<string, ClaudeProjectRow>();
  const cwdsOf = new Map<string, Array<string | null>>();
  for (const s of scan.sessions) {
    const folder = path.basename(path.dirname(s.file));
    cwdsOf.set(folder, [...(cwdsOf.get(folder) ?? []), s.cwd]);
    const row = byFolder.get(folder) ?? {
      folder,
      cwd: null,
      cwds: [],
      exists: false,
      sessions: 0,
      lastActivity: s.updatedAt,
      costUsd: 0,
    };
    row.sessions++;
    if (s.updatedAt > row.lastActivity) row.lastActivity = s.updatedAt;
    row.costUsd += s.costUsd ?? 0;
    byFolder.set(folder, row);
  }
  // The folder's own directories (those its name encodes) over one a session began in elsewhere.
  for (const row of byFolder.values()) {
    row.cwds = projectNames(row.folder, cwdsOf.get(row.folder)!);
    row.cwd = row.cwds[0] ?? null;
    row.exists = row.cwds.some(isDir);
  }
  const every = [...byFolder.values()].sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
  const rows = options.limit === undefined ? every : every.slice(0, options.limit);
  if (options.json) return printJson(rows);
  if (rows.length === 0)
    return void writeOut(`claude has no sessions on this machine (looked in ${claudeConfigDir()}/projects)\n`);
  const shown = inertValue(rows);
  const ours = insideAny(place.workTrees);
  printTable(
    ["PROJECT", "SESSIONS", "LAST ACTIVE", "COST", "STATE"],
    shown.map((r) => [
      r.cwds.length ? r.cwds.join(", ") : "(no folder named in its transcripts)",
      thousands(r.sessions),
      r.lastActivity.slice(0, 16).replace("T", " "),
      formatCost(r.costUsd),
      r.cwd === null ? "" : !r.exists ? "folder no longer exists" : r.cwds.some(ours) ? "this repository" : "",
    ]),
  );
  writeOut(
    `${thousands(every.length)} project${every.length === 1 ? "" : "s"}, ${thousands(scan.sessions.length)} sessions; one project's: cd <project> && nudge session list\n`,
  );
  const left = every.length - rows.length;
  if (left > 0)
    writeOut(
      `${thousands(left)} less recently used project${left === 1 ? "" : "s"} not shown (${rows.length} of ${thousands(every.length)}); every one: nudge session list --all-projects --all\n`,
    );
}
