/**
 * The snapshot commits an export carries. Each snapshot's message holds its turn's prompt, so a
 * secret typed in a prompt would travel inside the git bundle too. With masking on, the chain is
 * copied from the first commit whose message holds one: same trees, same dates, the message
 * masked, each parent the copy of its own. The copies are plain objects in the repository (no
 * ref names them; git gc prunes them) and the same chain always gives the same copies, so the
 * export stays the same bytes. Everything else keeps its commit ids.
 */
import { UserError } from "../errors.js";
import type { Turn } from "../bundle/manifest-schema.js";
import * as git from "../snapshot/git.js";
import { maskTextData } from "./secrets.js";

export interface ExportedCommits {
  turns: Turn[];
  /** The newest snapshot, or its copy. */
  tip: string;
  /** How many commits were copied with a masked message. */
  copied: number;
  /** What was masked in the messages, by kind and turn. */
  masked: Array<{ kind: string; turn: number | null }>;
}

export async function exportCommits(root: string, tip: string, base: string | null, turns: Turn[], redact: boolean): Promise<ExportedCommits> {
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
  if (!redact) return { turns, tip, copied: 0, masked: [] };

  const messages = await maskMessages(chain.map((c) => c.message));
  const turnOfCommit = new Map(turns.flatMap((t) => [[t.snapshot.commit, t.n] as const, ...(t.edits ? [[t.edits.snapshot.commit, t.n] as const] : [])]));
  const copies = new Map<string, string>();
  const masked: ExportedCommits["masked"] = [];
  for (const [i, c] of chain.entries()) {
    const message = messages[i]!;
    const parents = c.parents.map((p) => copies.get(p) ?? p);
    if (message.kinds.length === 0 && parents.every((p, j) => p === c.parents[j])) continue;
    for (const kind of message.kinds) masked.push({ kind, turn: turnOfCommit.get(c.commit) ?? null });
    copies.set(c.commit, await git.commitTree(root, c.tree, parents, message.text, { author: c.authorDate, committer: c.committerDate }));
  }
  if (copies.size === 0) return { turns, tip, copied: 0, masked };
  const copy = (commit: string) => copies.get(commit) ?? commit;
  return {
    turns: turns.map((t) => ({
      ...t,
      snapshot: { ...t.snapshot, commit: copy(t.snapshot.commit) },
      ...(t.edits ? { edits: { ...t.edits, snapshot: { ...t.edits.snapshot, commit: copy(t.edits.snapshot.commit) } } } : {}),
    })),
    tip: copy(tip),
    copied: copies.size,
    masked,
  };
}

/** Every message masked. One detection call over all of them says whether any holds a secret; only then is each masked on its own. */
async function maskMessages(messages: string[]): Promise<Array<{ text: string; kinds: string[] }>> {
  const joined = await maskTextData(messages.join("\n\n"));
  if (joined.kinds.length === 0) return messages.map((text) => ({ text, kinds: [] }));
  const out: Array<{ text: string; kinds: string[] }> = [];
  for (const text of messages) {
    const one = await maskTextData(text);
    out.push({ text: one.kinds.length ? one.data.toString("utf8") : text, kinds: one.kinds });
  }
  return out;
}
