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
 * first entry is `nudge-export.json`) counts as one: it carries a whole recording.
 */
import { gunzipSync } from "node:zlib";
import type { Turn } from "../bundle/manifest-schema.js";
import * as git from "../snapshot/git.js";
import { INDEX_NAME } from "./export-index.js";
import { detectSecrets } from "./secret-detect.js";

export interface CodeSecret {
  kind: string;
  /** The file in the repository. */
  path: string;
  turn: number;
  /** The patch of the change that brought it, inside the bundle: changes/turn-002.patch. */
  patch: string;
}

/** What a file that is itself an export is reported as. */
export const EXPORT_IN_CODE = "nudge-export";

/** Files larger than this are not scanned (they are binaries or generated; a secret in one goes unseen, as the README says). */
const MAX_SCANNED = 8 * 1024 * 1024;
/** Bytes looked at to tell a binary file: git's own rule is a NUL in the first 8,000. */
const BINARY_PROBE = 8000;
/** A gzip file is inflated this far at most to see whether it is an export (its first header is at the start). */
const GZIP_PROBE = 64 * 1024;

/**
 * Every secret the snapshot commits from `base` to `tip` add, by turn and file. `turns` names
 * the turn and patch of each snapshot commit (its turn snapshot, or the user's edits before it).
 */
export async function scanCode(root: string, tip: string, base: string | null, turns: Turn[]): Promise<CodeSecret[]> {
  const owner = new Map<string, { turn: number; patch: string }>();
  for (const t of turns) {
    owner.set(t.snapshot.commit, { turn: t.n, patch: t.patch.file });
    if (t.edits) owner.set(t.edits.snapshot.commit, { turn: t.n, patch: t.edits.patch.file });
  }
  // Every change first (one diff-tree per commit), then every blob in two cat-file processes, not two per commit.
  const changes: Array<{ of: { turn: number; patch: string }; entry: git.TreeDiffEntry; before: boolean }> = [];
  const empty = await git.emptyTree(root);
  for (const commit of await git.commitChain(root, tip, base)) {
    const of = owner.get(commit.commit);
    if (!of) continue;
    // --no-renames: a renamed file is a deletion and an addition; a pure rename (same blob) adds nothing new.
    const entries = await git.diffEntries(root, commit.parents[0] ?? empty, commit.commit, false);
    const deleted = new Set(entries.filter((e) => e.status === "D").map((e) => e.oldBlob));
    for (const entry of entries) {
      if (entry.status === "D" || !/^100[67]/.test(entry.newMode) || deleted.has(entry.newBlob)) continue;
      changes.push({ of, entry, before: !/^0+$/.test(entry.oldBlob) && /^100[67]/.test(entry.oldMode) });
    }
  }
  // Files above MAX_SCANNED are not read (a large binary changed in many turns would be read whole each time).
  const sizes = await git.blobSizes(root, [...new Set(changes.flatMap((c) => [c.entry.newBlob, ...(c.before ? [c.entry.oldBlob] : [])]))]);
  const scanned = changes.filter((c) => (sizes.get(c.entry.newBlob) ?? 0) <= MAX_SCANNED);
  changes.splice(0, changes.length, ...scanned);
  for (const c of changes) if (c.before && (sizes.get(c.entry.oldBlob) ?? 0) > MAX_SCANNED) c.before = false;
  const olds = changes.filter((c) => c.before);
  const [now, then] = await Promise.all([git.readBlobs(root, changes.map((c) => c.entry.newBlob)), git.readBlobs(root, olds.map((c) => c.entry.oldBlob))]);
  const old = new Map(olds.map((c, i) => [c, then[i]!.toString("utf8")]));
  const found: CodeSecret[] = [];
  const seen = new Set<string>();
  for (const [i, c] of changes.entries()) {
    for (const kind of await secretsIn(now[i]!, old.get(c) ?? "")) {
      const key = `${c.of.turn}\0${c.entry.path}\0${kind}`;
      if (!seen.has(key)) found.push({ kind, path: c.entry.path, turn: c.of.turn, patch: c.of.patch });
      seen.add(key);
    }
  }
  return found;
}

/** The kinds of secret in a file's content that its earlier content did not hold. */
async function secretsIn(content: Buffer, before: string): Promise<string[]> {
  if (isExport(content)) return [EXPORT_IN_CODE];
  if (content.subarray(0, BINARY_PROBE).includes(0)) return [];
  const text = content.toString("utf8");
  return (await detectSecrets(text)).filter((s) => !before.includes(text.slice(s.start, s.end))).map((s) => s.kind);
}

/** A gzipped (or plain) tar whose first entry is `<top>/nudge-export.json`: an export of a session. */
function isExport(content: Buffer): boolean {
  let head = content;
  if (content[0] === 0x1f && content[1] === 0x8b) {
    try {
      head = gunzipSync(content.subarray(0, GZIP_PROBE), { finishFlush: 2 /* Z_SYNC_FLUSH: a cut stream is not an error */ });
    } catch {
      return false;
    }
  }
  if (head.length < 512) return false;
  const name = head.toString("latin1", 0, 100).replace(/\0.*$/s, "");
  return name.endsWith(`/${INDEX_NAME}`) && /^nudge-/.test(name);
}
