/**
 * The snapshot commits an export carries. Each snapshot's message holds its turn's prompt, so a
 * secret typed in a prompt would travel inside the git bundle too. With masking on, the chain is
 * copied from the first commit whose message holds one: same trees, same dates, the message
 * masked, each parent the copy of its own. The copies are plain objects in the repository (no
 * ref names them; git gc prunes them) and the same chain always gives the same copies, so the
 * export stays the same bytes. Commits before the first secret keep their ids.
 */
import { InternalError, UserError } from "../base/errors.js";
import type { Turn } from "../store/manifest-schema.js";
import * as git from "../snapshot/git.js";
import { maskTextData } from "../secrets/secrets.js";

export interface ExportedCommits {
  turns: Turn[];
  /** The newest snapshot, or its copy. */
  tip: string;
  /** How many commits were copied with a masked message. */
  copied: number;
  /** The secrets in the messages, by kind and turn: masked in the copies, or (with --no-redact) kept. */
  found: Array<{ kind: string; turn: number | null }>;
}

export async function exportCommits(
  root: string,
  tip: string,
  base: string | null,
  turns: Turn[],
  redact: boolean,
): Promise<ExportedCommits> {
  const chain = await git.commitChain(root, tip, base);
  const inChain = new Set(chain.map((c) => c.commit));
  for (const t of turns) {
    for (const commit of [t.snapshot.commit, ...(t.edits ? [t.edits.snapshot.commit] : [])]) {
      if (!inChain.has(commit)) {
        throw new UserError(
          `turn ${t.n}'s snapshot ${commit.slice(0, 10)} is not in the session's chain of snapshots`,
          "this session was recorded by an older nudge, or its refs were changed by hand; fork it (nudge session fork) and export the fork",
        );
      }
    }
  }
  const messages = await maskMessages(chain.map((c) => c.message));
  const turnOfCommit = new Map(
    turns.flatMap((t) => [
      [t.snapshot.commit, t.n] as const,
      ...(t.edits ? [[t.edits.snapshot.commit, t.n] as const] : []),
    ]),
  );
  const found: ExportedCommits["found"] = [];
  // From the first commit whose message holds a secret on, each commit is copied (its parent changed).
  const first = messages.findIndex((m) => m.kinds.length > 0);
  const copied = first === -1 ? [] : chain.slice(first);
  for (const [i, c] of copied.entries())
    for (const kind of messages[first + i]!.kinds) found.push({ kind, turn: turnOfCommit.get(c.commit) ?? null });
  // --no-redact: the messages travel as they are, and the output says what they hold.
  if (!redact) return { turns, tip, copied: 0, found };
  const ids = await git.copyCommits(
    root,
    copied.map((c, i) => ({
      commit: c.commit,
      parents: c.parents,
      ...(messages[first + i]!.kinds.length ? { message: messages[first + i]!.text } : {}),
    })),
  );
  const copies = new Map(copied.map((c, i) => [c.commit, ids[i]!]));
  if (copies.size === 0) return { turns, tip, copied: 0, found };
  const copy = (commit: string) => copies.get(commit) ?? commit;
  return {
    turns: turns.map((t) => ({
      ...t,
      snapshot: { ...t.snapshot, commit: copy(t.snapshot.commit) },
      ...(t.edits
        ? { edits: { ...t.edits, snapshot: { ...t.edits.snapshot, commit: copy(t.edits.snapshot.commit) } } }
        : {}),
    })),
    tip: copy(tip),
    copied: copies.size,
    found,
  };
}

/**
 * Every message masked, in one detection call: the messages are joined by a line no secret
 * pattern reaches across (a NUL byte cannot be in a commit message), then split again.
 */
async function maskMessages(messages: string[]): Promise<Array<{ text: string; kinds: string[] }>> {
  const SEPARATOR = "\n\u0000\n";
  const joined = await maskTextData(messages.join(SEPARATOR));
  if (joined.kinds.length === 0) return messages.map((text) => ({ text, kinds: [] }));
  const texts = joined.data.toString("utf8").split(SEPARATOR);
  if (texts.length !== messages.length) throw new InternalError("masking commit messages merged two of them");
  const out: Array<{ text: string; kinds: string[] }> = [];
  for (const [i, text] of texts.entries()) out.push({ text, kinds: text === messages[i] ? [] : kindsIn(text) });
  return out;
}

/** The kinds of the placeholders in a masked text. */
function kindsIn(text: string): string[] {
  return [...text.matchAll(/\[REDACTED:([a-z0-9-]+)\]/g)].map((m) => m[1]!);
}
