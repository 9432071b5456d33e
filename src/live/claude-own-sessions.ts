/**
 * claude's own sessions as sessions of a repository: those whose transcripts name a working
 * directory in one of its work trees (or a folder inside one), less those nudge recorded or
 * adopted already (their claude session ids are the transcript copies in its bundles).
 */
import type { Dirent } from "node:fs";
import { access, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { NoSuchSession, sessionIds, type Store } from "../store/store.js";
import { readCard, type ClaudeSessionCard } from "../claude/claude-session-card.js";
import { insideAny, scanClaudeSessions, workTreesOf } from "./claude-session-scan.js";
import type { EarlyStats } from "./claude-folder-stats.js";
import { claudeConfigDir } from "../claude/transcript.js";
import { UserError } from "../base/errors.js";
import { visible } from "../base/inert-text.js";
import { knownClaudeIds as knownIds } from "../store/known-claude-ids.js";
import { heldClaudeIds, type HeldClaudeId } from "./held-claude-ids.js";

export type ClaudeSession = ClaudeSessionCard & { source: "claude" };

/** This repository's (`allProjects`: every project's) sessions claude kept that nudge does not hold, the one used last first. */
export async function claudeOwnSessions(
  store: Store,
  o: { allProjects?: boolean; env?: NodeJS.ProcessEnv; cacheKnown?: boolean } = {},
): Promise<ClaudeSession[]> {
  return (await claudeOwnScan(store, o)).sessions;
}

/** The same, at most `limit` of them, and how many there are. */
export async function claudeOwnScan(
  store: Store,
  o: {
    allProjects?: boolean;
    env?: NodeJS.ProcessEnv;
    limit?: number;
    early?: Promise<EarlyStats>;
    /** The ids nudge holds through the store's cache of them (a search: the cost of listing a thousand bundles' folders each time). */
    cacheKnown?: boolean;
  } = {},
): Promise<{ sessions: ClaudeSession[]; total: number }> {
  const [roots, early] = await Promise.all([workTreesOf(store.repoRoot, store.commonDir), o.early]);
  // nudge's own ids read only if some transcript of claude's is wanted at all.
  const skip = () => knownClaudeIds(store, { cache: o.cacheKnown });
  const wanted = o.allProjects ? () => true : insideAny(roots);
  const scan = await scanClaudeSessions(claudeConfigDir(o.env), store.dir, wanted, { limit: o.limit, skip, early });
  return { sessions: scan.sessions.map((s) => ({ ...s, source: "claude" as const })), total: scan.total };
}

/** The claude session ids nudge's bundles hold a transcript of (recorded, adopted, imported); `cache`: through the store's cache of them. */
export function knownClaudeIds(store: Store, o: { cache?: boolean } = {}): Promise<Set<string>> {
  return knownIds(store.dir, o);
}

/**
 * The refusal for a claude session nudge holds already: by its id and the nudge session's, never
 * only the prefix typed (which may be anything the user copied).
 */
function alreadyNudges(prefix: string, held: Map<string, string[]>, others: string[] = []): UserError {
  const matches = [...held].filter(([claude]) => claude.startsWith(prefix)).sort(([a], [b]) => a.localeCompare(b));
  const name = ([claude, nudge]: [string, string[]]) => `${visible(claude)} (nudge session ${nudge.join(", ")})`;
  if (matches.length === 1) {
    const [claude, nudge] = matches[0]!;
    return new UserError(
      `claude's session ${visible(claude)} is nudge's already: nudge session ${nudge.join(", ")} (recorded or adopted)`,
      `look at it: nudge session show ${nudge[0]}${elsewhere(others)}`,
    );
  }
  return new UserError(
    `"${visible(prefix)}" begins claude sessions nudge holds already: ${matches.slice(0, 8).map(name).join(", ")}${matches.length > 8 ? ` and ${matches.length - 8} more` : ""}`,
    `find them with: nudge session list${elsewhere(others)}`,
  );
}

/** A hint's tail naming claude sessions of other projects the same prefix begins, which a full id adopts. */
function elsewhere(others: string[]): string {
  if (others.length === 0) return "";
  const some = others.slice(0, 3).map(visible).join(", ");
  return `; the prefix also begins ${others.length === 1 ? "another project's session" : "other projects' sessions"} ${some}: to adopt ${others.length === 1 ? "it" : "one"}, give its full id`;
}

/**
 * The claude session an id or a unique prefix of one names, among every project's (a full id is
 * unique anywhere); null when none does, or when the one it names is nudge's (heldByNudge says
 * which). Only claude's: an id that may be nudge's goes through resolveAnyId (session-id.ts).
 */
export async function findClaudeSession(
  store: Store,
  idOrPrefix: string,
  env?: NodeJS.ProcessEnv,
  /** What heldClaudeIds said of this prefix, when the caller asked already. */
  known?: Awaited<ReturnType<typeof heldClaudeIds>>,
): Promise<ClaudeSession | null> {
  const held = known ?? (await heldClaudeIds(store, idOrPrefix));
  const matches = await claudeIdMatches(store, idOrPrefix, env, held.known);
  const exact = matches.filter((m) => m.id === idOrPrefix);
  const holders = holdersOf(held.matches);
  const ids = [...new Set(matches.map((m) => m.id))];
  // Those nudge holds count too: a prefix never silently names the one of two that is left.
  if (exact.length === 0 && !holders.has(idOrPrefix) && ids.length + holders.size > 1)
    throw ambiguousAmong(idOrPrefix, "claude's sessions", ids, holders);
  const one = exact[0] ?? (holders.size ? undefined : matches[0]);
  return one ? claudeSessionAt(one.file) : null;
}

/** Each claude id with the nudge sessions holding it. */
function holdersOf(held: HeldClaudeId[]): Map<string, string[]> {
  const holders = new Map<string, string[]>();
  for (const h of held) holders.set(h.claude, [...(holders.get(h.claude) ?? []), h.nudge]);
  return holders;
}

/** A prefix that begins more than one of claude's sessions: each listed, one nudge holds with the nudge session holding it. */
function ambiguousAmong(prefix: string, among: string, own: string[], held: Map<string, string[]>): NoSuchSession {
  const rows = [
    ...own.map((id) => [id, ""] as const),
    ...[...held].map(([id, nudge]) => [id, ` (nudge's already: nudge session ${nudge.join(", ")})`] as const),
  ].sort(([a], [b]) => a.localeCompare(b));
  const some = rows.slice(0, 8);
  return new NoSuchSession(
    `"${visible(prefix)}" is ambiguous among ${among}: ${some.map(([id, note]) => visible(id) + note).join(", ")}${rows.length > 8 ? ` and ${rows.length - 8} more` : ""}`,
    "type more of the id",
    some.map(([id]) => id),
  );
}

/**
 * claude's transcripts, in every project's folder, whose id begins with `idOrPrefix`, less those
 * nudge holds (`known`, when the caller has them): found by file name alone (links are not
 * followed), nothing read.
 */
export async function claudeIdMatches(
  store: Store,
  idOrPrefix: string,
  env?: NodeJS.ProcessEnv,
  known?: Set<string>,
): Promise<Array<{ id: string; file: string }>> {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(idOrPrefix)) return [];
  const root = path.join(claudeConfigDir(env), "projects");
  const [held, folders] = await Promise.all([
    known ?? knownClaudeIds(store),
    readdir(root, { withFileTypes: true }).catch(() => [] as Dirent[]),
  ]);
  const matches: Array<{ id: string; file: string }> = [];
  for (const folder of folders) {
    if (!folder.isDirectory()) continue;
    for (const e of await readdir(path.join(root, folder.name), { withFileTypes: true }).catch(() => [] as Dirent[])) {
      const id = e.name.slice(0, -".jsonl".length);
      if (e.isFile() && e.name.endsWith(".jsonl") && id.startsWith(idOrPrefix) && !held.has(id))
        matches.push({ id, file: path.join(root, folder.name, e.name) });
    }
  }
  return matches;
}

/**
 * Every id a prefix typed to `show` is taken among: claude's transcripts in every project's
 * folder (by file name, nothing read) and nudge's sessions. A listing shows ids long enough to be
 * unique in it.
 */
export async function idsShowResolves(store: Store, env?: NodeJS.ProcessEnv): Promise<string[]> {
  const root = path.join(claudeConfigDir(env), "projects");
  const [nudge, folders] = await Promise.all([
    sessionIds(store),
    readdir(root, { withFileTypes: true }).catch(() => [] as Dirent[]),
  ]);
  const claude = await Promise.all(
    folders
      .filter((f) => f.isDirectory())
      .map(async (f) =>
        (await readdir(path.join(root, f.name)).catch(() => [] as string[]))
          .filter((n) => n.endsWith(".jsonl"))
          .map((n) => n.slice(0, -".jsonl".length)),
      ),
  );
  return [...nudge, ...claude.flat()];
}

/** The card of one transcript, or null when it is gone or no regular file. */
export async function claudeSessionAt(file: string): Promise<ClaudeSession | null> {
  const s = await stat(file).catch(() => null);
  const card = s?.isFile() ? await readCard(file, s).catch(() => null) : null;
  return card && { ...card, source: "claude" };
}

/** Where a session of claude's ran when that is not this repository: its folder, and whether it still exists. */
export interface OtherProject {
  cwd: string | null;
  gone: boolean;
}

/** null when the session ran in one of this repository's work trees (or a folder inside one). */
export async function otherProjectOf(store: Store, session: ClaudeSession): Promise<OtherProject | null> {
  if (insideAny(await workTreesOf(store.repoRoot, store.commonDir))(session.cwd)) return null;
  const gone =
    session.cwd === null ||
    (await access(session.cwd).then(
      () => false,
      () => true,
    ));
  return { cwd: session.cwd, gone };
}

/** "ran in /x, another project" (with "whose folder no longer exists" when it is gone). */
export function describeOtherProject(o: OtherProject): string {
  const where = o.cwd === null ? "a folder its transcript does not name" : visible(o.cwd);
  return `this session ran in ${where}, another project${o.gone ? " whose folder no longer exists" : ""}`;
}

/**
 * The session `session adopt` takes: a prefix resolves among this repository's sessions first; one
 * of another project's is taken only by its full id or with `fromOtherProject`, so a short prefix
 * never silently pulls in another project's conversation.
 */
export async function findClaudeSessionToAdopt(
  store: Store,
  idOrPrefix: string,
  o: { fromOtherProject?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<{ session: ClaudeSession; other: OtherProject | null } | null> {
  const [own, held] = await Promise.all([claudeOwnSessions(store, { env: o.env }), heldClaudeIds(store, idOrPrefix)]);
  const here = own.filter((s) => s.id.startsWith(idOrPrefix));
  const holders = holdersOf(held.matches);
  const exactHere = here.find((s) => s.id === idOrPrefix);
  if (exactHere) return { session: withPrompt(exactHere), other: null };
  // The sessions nudge holds are among the prefix's: one of them and one left is ambiguous, never the one left.
  if (here.length > 0 && !holders.has(idOrPrefix) && here.length + holders.size > 1)
    throw ambiguousAmong(
      idOrPrefix,
      "this repository's claude sessions",
      here.map((s) => s.id),
      holders,
    );
  if (here.length === 1 && holders.size === 0) return { session: withPrompt(here[0]!), other: null };
  // Before other projects': a session this repository holds already is what the prefix names here.
  if (holders.size > 0) {
    const others = (await claudeIdMatches(store, idOrPrefix, o.env, held.known)).map((m) => m.id);
    throw alreadyNudges(idOrPrefix, holders, [...new Set(others)].sort());
  }
  const found = await findClaudeSession(store, idOrPrefix, o.env, held);
  if (!found) return null;
  // Before where it ran: a transcript with no prompt names no folder, so it would read as a project gone.
  const session = withPrompt(found);
  const other = await otherProjectOf(store, session);
  if (other && session.id !== idOrPrefix && !o.fromOtherProject)
    throw new UserError(
      `no claude session of this repository matches "${visible(idOrPrefix)}"; it begins ${session.id}, of another project (${describeOtherProject(other)})`,
      `to adopt it into this repository all the same, give its full id: nudge session adopt ${session.id} (or add --from-other-project: nudge session adopt ${visible(idOrPrefix)} --from-other-project)`,
    );
  return { session, other };
}

/** A transcript with no prompt (claude wrote nothing, or only its bookkeeping) has nothing to adopt: said so, by its full id. */
function withPrompt(session: ClaudeSession): ClaudeSession {
  if (session.turns !== 0) return session;
  throw new UserError(
    `claude's session ${visible(session.id)} holds no prompt: there is nothing to adopt`,
    `look at it where it is: nudge session show ${visible(session.id)}`,
  );
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
