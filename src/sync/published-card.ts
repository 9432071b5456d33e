/**
 * A published session on a git remote, and its card: what `session list --remote` shows, small
 * enough that a thousand of them fetch and list in moments without a byte of any session's content.
 *
 * Layout on the remote (never under refs/heads or refs/tags, so no clone, fetch, pull or host's
 * branch list sees them):
 *   refs/nudge/published/<id>/data  a commit whose tree is one file, `export.tar`: exactly what
 *                                   `nudge session export` writes, uncompressed (so git deltas a
 *                                   new turn's export against the last one); its parent is the
 *                                   previous publication of the same session, so a push sends the
 *                                   new turn only and a fast-forward is the only update allowed.
 *   refs/nudge/published/<id>/card  a commit with no parent whose tree is one file, `card.json`
 *                                   (this schema), replaced at each publication under a lease.
 *   refs/nudge/published/<id>/base/<commit>
 *                                   a commit of the code the export builds on and does not carry
 *                                   (its git bundle's prerequisites, the session's base commit),
 *                                   pinned so that a rebase, squash or force-push of the branch
 *                                   that held it, and the server's gc after, cannot take it away.
 * The card is as untrusted as the rest: parsed with this schema, shown inert, and never used to
 * decide what a pull installs (the export's own checks do that).
 */
import * as z from "../base/zod.js";

export const CARD_KIND = "nudge-published";
export const CARD_FORMAT = 1;
export const CARD_FILE = "card.json";
export const EXPORT_FILE = "export.tar";
/** A card is a few hundred bytes; anything near this is not one. */
export const MAX_CARD_BYTES = 64 * 1024;
export const PUBLISHED_PREFIX = "refs/nudge/published/";

/** Published ids are session ids: 10 hex characters (a fork published under a fresh one too). */
export const PUBLISHED_ID = /^[0-9a-f]{10}$/;
const sha = z.string().check(z.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a git object id"));
const isoTime = z.iso.datetime({ offset: true });
const text = (max: number) => z.nullable(z.string().check(z.maxLength(max)));

export const CardSchema = z.object({
  kind: z.literal(CARD_KIND),
  format: z.literal(CARD_FORMAT),
  id: z.string().check(z.regex(PUBLISHED_ID, "a published session id")),
  /** The session's id in the export (a fork published under a fresh id keeps its own inside). */
  session: z.string().check(z.regex(PUBLISHED_ID, "a session id")),
  /** The publication this one continues under a fresh id (someone else's session, continued). */
  forkOf: z.nullable(z.object({ id: z.string().check(z.regex(PUBLISHED_ID)), turn: z.int().check(z.nonnegative()) })),
  author: text(600),
  branch: text(300),
  turns: z.int().check(z.nonnegative()),
  /** The session's time the export is as of: its last turn (or turn N's with --upto). */
  lastTurnAt: isoTime,
  firstPrompt: text(300),
  lastPrompt: text(300),
  publishedAt: isoTime,
  /** The data commit this card describes, and its export's size and sha256. */
  data: sha,
  bytes: z.int().check(z.nonnegative()),
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  nudgeVersion: z.string().check(z.maxLength(64)),
});
export type Card = z.infer<typeof CardSchema>;

/** All refs of one publication: its data, card and pins. */
export function publishedPrefix(id: string): string {
  return `${PUBLISHED_PREFIX}${id}/`;
}

export function dataRef(id: string): string {
  return `${publishedPrefix(id)}data`;
}

/** Where the pins of a publication's code live (see the layout above). */
export function basePrefix(id: string): string {
  return `${publishedPrefix(id)}base/`;
}

/** A pin of a commit the publication builds on. */
export function baseRef(id: string, commit: string): string {
  return `${basePrefix(id)}${commit}`;
}

/** The pins of one publication, as ls-remote lists them: the commit each names (and holds). */
export function basePins(id: string, refs: Map<string, string>): string[] {
  const prefix = basePrefix(id);
  return [...refs]
    .filter(
      ([ref, commit]) =>
        ref.startsWith(prefix) && ref.slice(prefix.length) === commit && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit),
    )
    .map(([, commit]) => commit);
}

export function cardRef(id: string): string {
  return `${publishedPrefix(id)}card`;
}

/** `refs/nudge/published/<id>/<kind>` (or `<prefix><id>/<kind>`) → its id and kind, or null for a ref nudge did not make. */
export function parsePublishedRef(
  ref: string,
  prefix = PUBLISHED_PREFIX,
): { id: string; kind: "data" | "card" } | null {
  const [id = "", kind, ...more] = ref.startsWith(prefix) ? ref.slice(prefix.length).split("/") : [];
  return PUBLISHED_ID.test(id) && (kind === "data" || kind === "card") && more.length === 0 ? { id, kind } : null;
}
