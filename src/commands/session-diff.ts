import { Command } from "commander";
import * as z from "../zod.js";
import type { Manifest } from "../bundle/manifest-schema.js";
import { openStore, resolveSession, type Store } from "../bundle/store.js";
import { turnOf } from "../bundle/turn-lookup.js";
import { UserError } from "../errors.js";
import * as git from "../snapshot/git.js";
import { requireTree } from "../snapshot/snapshotter.js";
import { countChanges, renderPatch, renderStat, splitPatch, type FileDiff, type FileStatus } from "../terminal/diff-renderer.js";
import { printJson, writeErr, writeOut } from "../terminal/output.js";
import { colorEnabled, makeStyle } from "../terminal/style.js";
import { parseOptions, parseTurnArg } from "./parse-options.js";

const Options = z.object({
  stat: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
  from: z.optional(z.string()),
  to: z.optional(z.string()),
  edits: z.optional(z.boolean()),
});

export const sessionDiffCommand = new Command("diff")
  .description("show what a turn changed in the code, or what changed between two turns")
  .argument("<id>", "session id or unique prefix")
  .argument("[turn]", "the turn whose changes to show (0: the uncommitted work the session started from)")
  .option("--from <turn>", "compare from this turn's code…")
  .option("--to <turn>", "…to this turn's code")
  .option("--edits", "with a turn: the edits you made before it (a turn's own diff leaves them out)")
  .option("--stat", "one line per file with +/- counts, and a total")
  .option("--json", "machine-readable list of changed files")
  .addHelpText(
    "after",
    `
A turn's diff is what happened during the turn. What you changed in the files between two turns
is recorded apart, as your edits before the next one: --edits shows them. A file that left the
snapshot because an ignore rule now covers it is marked "now ignored": it is still on disk.
Binary files are named with their size, never printed.

Examples:
  $ nudge session diff 3f2a 2
  $ nudge session diff 3f2a 3 --edits
  $ nudge session diff 3f2a --from 0 --to 3 --stat
  $ nudge session diff 3f2a 3 --json | jq '.files[].path'
  $ FORCE_COLOR=1 nudge session diff 3f2a 1 | less -R`,
  )
  .action(async (id: string, turnArg: string | undefined, raw: unknown) => {
    const options = parseOptions(Options, raw);
    if (options.stat && options.json) throw new UserError("--stat and --json cannot be used together", "pick one");
    const store = await openStore(process.cwd());
    const m = (await resolveSession(store, id)).manifest;
    const range = pickRange(m, turnArg, options.from, options.to, options.edits);
    const ignored = new Set(range.nowIgnored ?? []);
    const files = (await turnDiff(store, m, range)).map((f) => (ignored.has(f.path) ? { ...f, nowIgnored: true } : f));
    // Claude's turns in the range that ran beside another recording (--force): their changes may be its.
    const sharedTurns = options.edits ? [] : m.turns.filter((t) => t.n > (range.from ?? -1) && t.n <= range.to && t.sharedWith?.length);
    const shared = [...new Set(sharedTurns.flatMap((t) => t.sharedWith ?? []))];
    if (options.json) {
      // The modes say what a chmod-only change is (0 insertions, 0 deletions otherwise).
      const list = files.map(({ path, oldPath, status, insertions, deletions, binary, oldMode, newMode, nowIgnored }) => ({
        path,
        oldPath,
        status,
        insertions,
        deletions,
        binary,
        oldMode,
        newMode,
        nowIgnored: nowIgnored ?? false,
      }));
      return printJson({ id: m.id, from: range.from, to: range.to, sharedWith: shared, files: list });
    }
    if (shared.length) {
      const turns = `turn${sharedTurns.length === 1 ? "" : "s"} ${sharedTurns.map((t) => t.n).join(", ")}`;
      writeErr(`! shared work tree: session${shared.length === 1 ? "" : "s"} ${shared.join(", ")} also recorded here during ${turns}; these changes may include ${shared.length === 1 ? "its" : "theirs"}\n`);
    }
    const style = makeStyle(colorEnabled(process.stdout));
    if (files.length === 0) return void writeOut(`${style.dim(`no changes ${range.label}`)}\n`);
    writeOut(options.stat ? renderStat(files, style) : renderPatch(files, style));
  });

interface DiffRange {
  /** Turn numbers; `from` null means the commit the session started on. */
  from: number | null;
  to: number;
  /** null: the empty tree (the session started on an unborn branch). */
  fromTree: string | null;
  toTree: string;
  label: string;
  /** Files the range took out of the snapshot because an ignore rule covers them; still on disk. */
  nowIgnored?: string[];
}

/** Turn arguments → the two snapshot trees to compare, or a UserError saying what is wrong. */
function pickRange(m: Manifest, turnArg: string | undefined, fromArg: string | undefined, toArg: string | undefined, yourEdits = false): DiffRange {
  const usage = `e.g. nudge session diff ${m.id} 2, or nudge session diff ${m.id} --from 0 --to 2`;
  const both = fromArg !== undefined || toArg !== undefined;
  if (turnArg !== undefined && both) throw new UserError("give a turn or --from/--to, not both", usage);
  if (yourEdits && turnArg === undefined) throw new UserError("--edits goes with a turn: the edits you made before it", usage);
  if (turnArg === undefined && !both) throw new UserError("say which changes to show: a turn, or --from and --to", usage);
  if (turnArg === undefined && (fromArg === undefined || toArg === undefined)) {
    throw new UserError("--from and --to go together", usage);
  }
  const tree = (arg: string, name: string) => {
    const turn = turnOf(m, parseTurnArg(arg, name));
    return { n: turn.n, tree: turn.snapshot.tree };
  };
  if (turnArg !== undefined) {
    const to = tree(turnArg, "turn");
    if (to.n === 0) {
      // Turn 0 is the uncommitted work present when the session started: compare with its base commit.
      const base = m.repo.baseCommit === null ? null : `${m.repo.baseCommit}^{tree}`;
      return { from: null, to: 0, fromTree: base, toTree: to.tree, label: "at the start of the session" };
    }
    const from = tree(String(to.n - 1), "turn");
    const edits = turnOf(m, to.n).edits;
    if (yourEdits) {
      if (!edits) return { from: from.n, to: to.n, fromTree: from.tree, toTree: from.tree, label: `of yours before turn ${to.n}` };
      return { from: from.n, to: to.n, fromTree: from.tree, toTree: edits.snapshot.tree, label: `of yours before turn ${to.n}`, nowIgnored: edits.patch.nowIgnored };
    }
    // A turn's own changes start where the turn started: after the user's edits, if there were any.
    return { from: from.n, to: to.n, fromTree: edits?.snapshot.tree ?? from.tree, toTree: to.tree, label: `in turn ${to.n}`, nowIgnored: turnOf(m, to.n).patch.nowIgnored };
  }
  const from = tree(fromArg!, "--from");
  const to = tree(toArg!, "--to");
  return { from: from.n, to: to.n, fromTree: from.tree, toTree: to.tree, label: `between turn ${from.n} and turn ${to.n}` };
}

/** The changed files between the range's two trees, each with its part of the readable patch. */
async function turnDiff(store: Store, m: Manifest, range: DiffRange): Promise<FileDiff[]> {
  const root = store.repoRoot;
  const snapshotOf = (n: number | null) => (n === null ? `the commit session ${m.id} started from` : `turn ${n}'s snapshot of session ${m.id}`);
  if (range.fromTree !== null) await requireTree(root, range.fromTree, snapshotOf(range.from));
  await requireTree(root, range.toTree, snapshotOf(range.to));
  const fromTree = range.fromTree ?? (await git.emptyTree(root));
  const toTree = range.toTree;
  const [entries, patch] = await Promise.all([git.diffEntries(root, fromTree, toTree), git.readablePatch(root, fromTree, toTree)]);
  const sections = splitPatch(patch.toString("utf8")); // for the terminal: bytes that are not UTF-8 show as �
  const sizes = await git.blobSizes(root, [...new Set(entries.flatMap((e) => [e.oldBlob, e.newBlob]).filter((b) => !/^0+$/.test(b)))]);
  let next = 0;
  return entries.map((e) => {
    // git prints a type change (file ↔ symlink) as a delete and an add: two sections, one entry.
    const lines = sections.slice(next, (next += e.status === "T" ? 2 : 1)).flat();
    return {
      path: e.path,
      ...(e.oldPath !== undefined && { oldPath: e.oldPath }),
      status: STATUS[e.status],
      ...countChanges(lines),
      oldMode: /^0+$/.test(e.oldMode) ? null : e.oldMode,
      newMode: /^0+$/.test(e.newMode) ? null : e.newMode,
      oldBytes: sizes.get(e.oldBlob) ?? null,
      newBytes: sizes.get(e.newBlob) ?? null,
      lines,
    };
  });
}

const STATUS: Record<git.TreeDiffEntry["status"], FileStatus> = {
  A: "added",
  D: "deleted",
  M: "modified",
  T: "type-changed",
  R: "renamed",
};
