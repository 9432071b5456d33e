/**
 * Secrets in the code an export carries. They cannot be masked: a masked patch would no longer
 * reproduce the snapshot its turn recorded, and the git objects hold the file as it was. So they
 * are found and named by file and turn, for the export to refuse, or to report with
 * --allow-secrets-in-code.
 *
 * What is scanned is each file's content as the snapshot holds it, for every file a snapshot
 * commit adds or changes, not the patch: a patch line starts with `+`, so a pattern anchored at
 * a line start (a private key's base64 body) never matched there, and a multi-line key was only
 * ever seen line by line. A secret the file already held before the commit (it is in the
 * repository already) is not counted. A file that is an export of a session (a gzipped tar whose
 * first entry is `nudge-export.json`) counts as one: it carries a whole recording. Names and
 * symbolic links' targets are part of git's trees and the patches, so they cannot be masked
 * either: a secret in the name of a file a turn adds, or in a link's target, is found the same way.
 */
import { gunzipSync } from "node:zlib";
import type { Turn } from "../store/manifest-schema.js";
import * as git from "../snapshot/git.js";
import { INDEX_NAME } from "./export-index.js";
import { SecretBatch } from "../secrets/secret-batch.js";

export interface CodeSecret {
  kind: string;
  /** The file in the repository; for a commit's message, the commit. */
  path: string;
  /** What holds it: the file's content, its name (a tree holds it), a symbolic link's target, or a commit's message. */
  in: "content" | "name" | "link target" | "message";
  /** The turn whose change brought it; null: history the export carries (carried-secrets.ts). */
  turn: number | null;
  /** The patch of the change that brought it, inside the bundle: changes/turn-002.patch (null for carried history). */
  patch: string | null;
}

/** What a file that is itself an export is reported as. */
export const EXPORT_IN_CODE = "nudge-export";

/** Files larger than this are not scanned (they are binaries or generated; a secret in one goes unseen, as docs/reference/security-model.md says). */
export const MAX_SCANNED = 8 * 1024 * 1024;
/** Bytes looked at to tell a binary file: git's own rule is a NUL in the first 8,000. */
const BINARY_PROBE = 8000;
/** A gzip file is inflated this far at most to see whether it is an export (its first header is at the start). */
const GZIP_PROBE = 64 * 1024;

/** A regular file (100644, 100755) or a symbolic link (120000, its blob is the target): what has content to scan. */
const HAS_CONTENT = /^(100[67]|120000)/;

/**
 * Every secret the snapshot commits from `base` to `tip` add, by turn and file: in a file's
 * content or a link's target (less what it held before), and in the name of a file the commit
 * adds. `turns` names the turn and patch of each snapshot commit (its turn snapshot, or the
 * user's edits before it). `scanned`: every blob looked at (or left unread for its size), which
 * the scan of carried history need not read again.
 */
export async function scanCode(
  root: string,
  tip: string,
  base: string | null,
  turns: Turn[],
): Promise<{ secrets: CodeSecret[]; scanned: Set<string> }> {
  const owner = new Map<string, { turn: number; patch: string }>();
  for (const t of turns) {
    owner.set(t.snapshot.commit, { turn: t.n, patch: t.patch.file });
    if (t.edits) owner.set(t.edits.snapshot.commit, { turn: t.n, patch: t.edits.patch.file });
  }
  // Every change first (one diff-tree for all the commits), then every blob in two cat-file processes, not two per commit.
  const changes: Array<{ of: { turn: number; patch: string }; entry: git.TreeDiffEntry; before: boolean }> = [];
  const names: Array<{ of: { turn: number; patch: string }; path: string }> = [];
  const all = await git.commitChain(root, tip, base);
  const chain = all.filter((c) => owner.has(c.commit));
  const trees = await parentTrees(root, chain, all);
  // --no-renames: a renamed file is a deletion and an addition; a pure rename (same blob) adds nothing new but its name.
  const diffs = await git.treePairEntries(
    root,
    chain.map((c, i) => [trees[i]!, c.tree]),
  );
  for (const [i, commit] of chain.entries()) {
    const of = owner.get(commit.commit)!;
    const entries = diffs[i]!;
    const deleted = new Set(entries.filter((e) => e.status === "D").map((e) => e.oldBlob));
    for (const entry of entries) {
      if (entry.status === "A") names.push({ of, path: entry.path });
      if (entry.status === "D" || !HAS_CONTENT.test(entry.newMode) || deleted.has(entry.newBlob)) continue;
      changes.push({ of, entry, before: !/^0+$/.test(entry.oldBlob) && HAS_CONTENT.test(entry.oldMode) });
    }
  }
  // Files above MAX_SCANNED are not read (a large binary changed in many turns would be read whole each time).
  const sizes = await git.blobSizes(root, [
    ...new Set(changes.flatMap((c) => [c.entry.newBlob, ...(c.before ? [c.entry.oldBlob] : [])])),
  ]);
  const scanned = new Set(changes.map((c) => c.entry.newBlob));
  const read = changes.filter((c) => (sizes.get(c.entry.newBlob) ?? 0) <= MAX_SCANNED);
  for (const c of read) if (c.before && (sizes.get(c.entry.oldBlob) ?? 0) > MAX_SCANNED) c.before = false;
  const olds = read.filter((c) => c.before);
  const [now, then] = await Promise.all([
    git.readBlobs(
      root,
      read.map((c) => c.entry.newBlob),
    ),
    git.readBlobs(
      root,
      olds.map((c) => c.entry.oldBlob),
    ),
  ]);
  const old = new Map(olds.map((c, i) => [c, then[i]!.toString("utf8")]));

  const found: CodeSecret[] = [];
  const seen = new Set<string>();
  const report = (s: CodeSecret) => {
    const key = `${s.turn}\0${s.path}\0${s.in}\0${s.kind}`;
    if (!seen.has(key)) found.push(s);
    seen.add(key);
  };
  const batch = new SecretBatch<{ change?: (typeof read)[number]; name?: (typeof names)[number] }>(
    (item, spans, text) => {
      const before = item.change ? (old.get(item.change) ?? "") : "";
      for (const span of spans) {
        if (item.change && before.includes(text.slice(span.start, span.end))) continue; // the file held it already
        const { of, path } = item.change ? { of: item.change.of, path: item.change.entry.path } : item.name!;
        const what = item.name ? "name" : item.change!.entry.newMode === "120000" ? "link target" : "content";
        report({ kind: span.kind, path, in: what, turn: of.turn, patch: of.patch });
      }
    },
  );
  for (const [i, c] of read.entries()) {
    const content = now[i]!;
    if (isExport(content))
      report({ kind: EXPORT_IN_CODE, path: c.entry.path, in: "content", turn: c.of.turn, patch: c.of.patch });
    else if (!isBinary(content)) await batch.add({ change: c }, content.toString("utf8"));
  }
  // A name is scanned as git stores it; a name that is not UTF-8 is read as latin1 would show it.
  for (const name of names) await batch.add({ name }, name.path);
  await batch.flush();
  // By turn, then path: the order a refusal names them in, whatever order they were read.
  found.sort((x, y) => x.turn! - y.turn! || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  return { secrets: found, scanned };
}

/** git's rule: a NUL in the first 8,000 bytes. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, BINARY_PROBE).includes(0);
}

/** A gzipped (or plain) tar whose first entry is `<top>/nudge-export.json`: an export of a session. */
export function isExport(content: Buffer): boolean {
  let head = content;
  if (content[0] === 0x1f && content[1] === 0x8b) {
    try {
      head = gunzipSync(content.subarray(0, GZIP_PROBE), {
        finishFlush: 2 /* Z_SYNC_FLUSH: a cut stream is not an error */,
      });
    } catch {
      return false;
    }
  }
  if (head.length < 512) return false;
  const name = head.toString("latin1", 0, 100).replace(/\0.*$/s, "");
  return name.endsWith(`/${INDEX_NAME}`) && /^nudge-/.test(name);
}

/** The tree of each commit's first parent (the empty tree for a root commit): from the chain itself, or asked of git for those before it. */
async function parentTrees(
  root: string,
  chain: Array<{ commit: string; tree: string; parents: string[] }>,
  all: typeof chain,
): Promise<string[]> {
  const known = new Map(all.map((c) => [c.commit, c.tree]));
  const empty = await git.emptyTree(root);
  const outside = [...new Set(chain.flatMap((c) => (c.parents[0] && !known.has(c.parents[0]) ? [c.parents[0]] : [])))];
  for (const commit of outside) known.set(commit, await git.treeOf(root, commit));
  return chain.map((c) => (c.parents[0] ? known.get(c.parents[0])! : empty));
}
