/**
 * What an id or prefix a person typed names, among nudge's sessions and claude's own at once: a
 * prefix that begins one of each is ambiguous, said with both listed, never settled by picking
 * nudge's (the user may have copied claude's from `session list`).
 */
import { NoSuchSession, resolveId, sessionIds, type Store } from "../store/store.js";
import { visible, visibleLine } from "../base/inert-text.js";
import { UserError } from "../base/errors.js";
import type { ClaudeSession } from "./claude-own-sessions.js";
import type { HeldClaudeId } from "./held-claude-ids.js";

type NamedSession = { source: "nudge"; id: string } | { source: "claude"; session: ClaudeSession };

/** Rows an ambiguity lists; more are counted, not shown. */
const SHOWN = 8;

/**
 * The session of either kind an id or prefix names (a prefix of both kinds is ambiguous, said with
 * both listed). A claude id nudge holds (adopted, or recorded) names the nudge session holding it.
 */
async function resolveAnyId(store: Store, idOrPrefix: string, env?: NodeJS.ProcessEnv): Promise<NamedSession> {
  // An empty id begins every id: said as such, not as every session listed ambiguous.
  if (idOrPrefix.trim() === "")
    throw new UserError("no session id given", "list the sessions with: nudge session list");
  const ids = await sessionIds(store);
  // A whole nudge id is what it names: claude's are longer, so claude's folder is not even read.
  if (ids.includes(idOrPrefix)) return { source: "nudge", id: idOrPrefix };
  // Loaded only now: a rewind or a show given a whole id never reads claude's own sessions.
  const [{ claudeIdMatches, claudeSessionAt }, { heldClaudeIds }] = await Promise.all([
    import("./claude-own-sessions.js"),
    import("./held-claude-ids.js"),
  ]);
  const held = await heldClaudeIds(store, idOrPrefix);
  const found = await claudeIdMatches(store, idOrPrefix, env, held.known);
  // A whole claude id names its session alone: claude's own, or the nudge session holding it.
  const exact = found.filter((c) => c.id === idOrPrefix);
  const heldExact = held.matches.filter((h) => h.claude === idOrPrefix);
  const whole = exact.length > 0 || heldExact.length > 0;
  const claude = exact.length ? exact.slice(0, 1) : whole ? [] : found;
  const through = heldExact.length ? heldExact : whole ? [] : held.matches;
  const direct = whole ? [] : ids.filter((id) => id.startsWith(idOrPrefix));
  const nudge = [...new Set([...direct, ...through.map((h) => h.nudge)])];
  if (claude.length === 0 && through.length === 0) return { source: "nudge", id: await resolveId(store, idOrPrefix) };
  const claudeIds = [...new Set(claude.map((c) => c.id))].sort();
  if (claude.length === 0 && nudge.length === 1) return { source: "nudge", id: nudge[0]! };
  if (nudge.length > 0) throw new AmbiguousSource(idOrPrefix, direct.sort(), through, claudeIds);
  if (claudeIds.length > 1)
    throw new NoSuchSession(
      `"${visibleLine(idOrPrefix)}" is ambiguous among claude's own sessions: ${claudeIds.slice(0, SHOWN).map(visible).join(", ")}${more(claudeIds.length)}`,
      "type more of the id",
      claudeIds.slice(0, SHOWN),
    );
  const session = await claudeSessionAt(claude[0]!.file);
  // Removed or emptied since its folder was read: as if it had not been there.
  return session ? { source: "claude", session } : { source: "nudge", id: await resolveId(store, idOrPrefix) };
}

/**
 * An id or prefix that names more than one session: each listed on a line of its own, with where
 * it is from (a nudge session found by claude's id it holds says which).
 */
class AmbiguousSource extends NoSuchSession {
  constructor(prefix: string, nudge: string[], held: HeldClaudeId[], claude: string[]) {
    // One row a nudge session: one the prefix begins by its own id and by claude's it holds is said as the latter.
    const holding = new Map<string, string[]>();
    for (const h of [...held].sort((a, b) => a.nudge.localeCompare(b.nudge) || a.claude.localeCompare(b.claude)))
      holding.set(h.nudge, [...(holding.get(h.nudge) ?? []), visible(h.claude)]);
    const rows = [
      ...nudge.filter((id) => !holding.has(id)).map((id) => [id, "nudge session"] as const),
      ...[...holding].map(
        ([id, claude]) =>
          [id, `nudge session holding claude's session${claude.length > 1 ? "s" : ""} ${claude.join(", ")}`] as const,
      ),
      ...claude.map((id) => [id, "claude's own session (not recorded by nudge)"] as const),
    ];
    const width = Math.max(...rows.map(([id]) => visible(id).length));
    const lines = rows.slice(0, SHOWN).map(([id, source]) => `  ${visible(id).padEnd(width)}  ${source}`);
    const kinds = held.length === 0 ? "sessions of nudge's and of claude's own" : "the ids of more than one session";
    super(
      [
        `"${visibleLine(prefix)}" is ambiguous: it begins ${kinds}`,
        ...lines,
        ...(rows.length > SHOWN ? [`  … and ${rows.length - SHOWN} more`] : []),
      ].join("\n"),
      "type more of the id (nudge session list shows both kinds)",
      [...new Set(rows.map(([id]) => id))].slice(0, SHOWN),
    );
  }
}

function more(n: number): string {
  return n > SHOWN ? ` and ${n - SHOWN} more` : "";
}

/**
 * The nudge session an id or prefix names, for a command that needs one: one of claude's own is
 * refused saying what it lacks and how to adopt it (NotRecorded, which show and replay catch to
 * read it instead).
 */
export async function resolveNudgeId(store: Store, idOrPrefix: string, doing?: string): Promise<string> {
  const named = await resolveAnyId(store, idOrPrefix);
  if (named.source === "claude") throw new (await import("./claude-own-sessions.js")).NotRecorded(named.session, doing);
  return named.id;
}

/**
 * The session a search's --session names, of either kind, as every command resolves an id (a prefix that
 * begins one of each is ambiguous): nudge's by its id, claude's own by claude's, and whether that
 * one ran in another project (then every project's are searched to find it).
 */
export async function sessionFilter(
  store: Store,
  idOrPrefix: string,
): Promise<{ nudge: string | null; claude: string | null; elsewhere: boolean }> {
  const named = await resolveAnyId(store, idOrPrefix);
  if (named.source === "nudge") return { nudge: named.id, claude: null, elsewhere: false };
  return {
    nudge: null,
    claude: named.session.id,
    elsewhere: (await (await import("./claude-own-sessions.js")).otherProjectOf(store, named.session)) !== null,
  };
}
