/**
 * claude's own sessions as sessions of a repository: those whose transcripts name a working
 * directory in one of its work trees (or a folder inside one), less those nudge recorded or
 * adopted already (their claude session ids are the transcript copies in its bundles).
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { NoSuchSession, type Store } from "../bundle/store.js";
import type { ClaudeSessionCard } from "../claude/claude-session-card.js";
import { insideAny, scanClaudeSessions, workTreesOf } from "./claude-session-scan.js";
import { claudeConfigDir } from "../claude/transcript.js";
import { UserError } from "../errors.js";
import { visible } from "../inert-text.js";

export type ClaudeSession = ClaudeSessionCard & { source: "claude" };

/** This repository's (`allProjects`: every project's) sessions claude kept that nudge does not hold, the one used last first. */
export async function claudeOwnSessions(store: Store, o: { allProjects?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<ClaudeSession[]> {
  return (await claudeOwnScan(store, o)).sessions;
}

/** The same, at most `limit` of them, and how many there are. */
export async function claudeOwnScan(store: Store, o: { allProjects?: boolean; env?: NodeJS.ProcessEnv; limit?: number } = {}): Promise<{ sessions: ClaudeSession[]; total: number }> {
  const wanted = o.allProjects ? () => true : insideAny(await workTreesOf(store.repoRoot, store.commonDir));
  const scan = await scanClaudeSessions(claudeConfigDir(o.env), store.dir, wanted, { limit: o.limit, skip: await knownClaudeIds(store) });
  return { sessions: scan.sessions.map((s) => ({ ...s, source: "claude" as const })), total: scan.total };
}

/** The claude session ids nudge's bundles hold a transcript of (recorded, adopted, imported). */
export async function knownClaudeIds(store: Store): Promise<Set<string>> {
  const sessions = path.join(store.dir, "sessions");
  const ids = new Set<string>();
  const folders = await readdir(sessions).catch(() => [] as string[]);
  await Promise.all(
    folders.map(async (id) => {
      for (const name of await readdir(path.join(sessions, id, "claude")).catch(() => [] as string[])) {
        const m = /^([A-Za-z0-9_-]{1,128})\.jsonl(\.gz)?$/.exec(name);
        if (m) ids.add(m[1]!);
      }
    }),
  );
  return ids;
}

/**
 * The claude session an id or a unique prefix of one names, among every project's (a full id
 * is unique anywhere); null when none does.
 */
export async function findClaudeSession(store: Store, idOrPrefix: string, env?: NodeJS.ProcessEnv): Promise<ClaudeSession | null> {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(idOrPrefix)) return null;
  const all = await claudeOwnSessions(store, { allProjects: true, env });
  const exact = all.find((s) => s.id === idOrPrefix);
  if (exact) return exact;
  const matches = all.filter((s) => s.id.startsWith(idOrPrefix));
  if (matches.length <= 1) return matches[0] ?? null;
  const some = matches.map((s) => s.id).sort().slice(0, 8);
  throw new NoSuchSession(`"${idOrPrefix}" is ambiguous among claude's own sessions: ${some.join(", ")}`, "type more of the id", some);
}

/** Thrown where a nudge session is needed and the id names one of claude's own: says what it lacks, and how to adopt it. */
export class NotRecorded extends UserError {
  constructor(
    readonly session: ClaudeSession,
    doing = "diff, rewind or fork",
  ) {
    super(
      `${session.id} is claude's own session, not recorded by nudge: it has no code snapshots to ${doing}`,
      `make it a nudge session (its code state: the work tree as it is now): nudge session adopt ${visible(session.id)}`,
    );
  }
}
