/**
 * Installing a checked, staged import: the one step that writes. In order — set aside what
 * --force replaces, the git objects and refs, the bundle folder (built under a hidden name and
 * renamed into place whole), claude's files (never over an existing one) — each journalled
 * before it is taken (cut-off-work.ts). If any step fails, what was done is undone in reverse: no
 * partial session, no refs, nothing left under the claude config dir; if the process is killed,
 * the next nudge command undoes it from the journal (cut-off-recovery.ts) before it reads anything. The work tree, HEAD, index
 * and branches are never touched.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Work } from "../store/cut-off-work.js";
import { bundleDir, type Store } from "../store/store.js";
import { faultPoint } from "../base/fault-injection.js";
import * as git from "../snapshot/git.js";
import { sessionRef } from "../snapshot/snapshotter.js";
import type { Placement, StagedSession } from "./import-stage.js";

export interface SetAside {
  /** The folder holding what was set aside: the replaced session (session/, index) and claude's files (claude/). */
  backupDir: string;
  /** The replaced session's refs, moved under refs/nudge/import-backups/. */
  refs: string[];
  /** claude's files that were in the way, by where they were. */
  claudeFiles: string[];
}

export interface InstallInput {
  store: Store;
  staged: StagedSession;
  bundleFile: string;
  /** The pack the check kept (git-bundle.ts, checkBundle): moved into place instead of unbundling again. */
  pack: string[] | null;
  refs: Array<{ ref: string; commit: string }>;
  /** With --force: the session now under the id, to set aside first. */
  replace: { refs: Array<{ ref: string; commit: string }> } | null;
  /** Where --force sets things aside. */
  backupDir: string;
  /** The import's journal; the staged session is inside its folder (same disk: moved, not copied). */
  work: Work;
}

/** Returns what --force set aside, or null when nothing was. */
export async function installSession(input: InstallInput): Promise<SetAside | null> {
  const { store, staged } = input;
  const id = staged.manifest.id;
  const root = store.repoRoot;
  const { work } = input;
  try {
    const aside = input.staged.placements.filter((p) => p.state === "different");
    if (input.replace || aside.length) {
      await work.will({ kind: "folder", path: input.backupDir }); // removed again only if it ends up empty
      await fs.mkdir(input.backupDir, { recursive: true, mode: 0o700 });
    }
    const refs = input.replace ? await setAside(store, id, input.replace.refs, input.backupDir, work) : [];
    for (const p of aside) {
      const kept = path.join(input.backupDir, "claude", path.relative(path.dirname(staged.projectDir), p.to));
      await fs.mkdir(path.dirname(kept), { recursive: true });
      await work.will({ kind: "renamed", from: p.to, to: kept });
      await fs.rename(p.to, kept);
    }

    faultPoint("import-refs");
    await work.will({ kind: "refs", refs: input.refs });
    await git.installBundle(root, input.bundleFile, input.refs, input.pack);

    const dir = bundleDir(store, id);
    const building = path.join(path.dirname(dir), `.${id}.building`);
    await fs.mkdir(path.dirname(dir), { recursive: true });
    await work.will({ kind: "made", path: building });
    await fs.rename(staged.dir, building);
    faultPoint("import-bundle");
    await work.will({ kind: "made", path: dir });
    await fs.rename(building, dir);
    // From here the session can be continued: once it is, a kill's undo must keep it (cut-off-work.ts).
    const tip = input.refs.find((r) => r.ref === sessionRef(id));
    if (tip) await work.will({ kind: "session", dir, ref: tip.ref, commit: tip.commit });

    // claude's files are placed from the bundle folder they moved into with it (the main
    // transcripts, compressed in the bundle, from their plain copies left in the import's work folder).
    const moved = (from: string) =>
      path.relative(staged.dir, from).startsWith("..") ? from : path.join(dir, path.relative(staged.dir, from));
    await place(
      staged.placements.map((p) => ({ ...p, from: moved(p.from) })),
      work,
    );
    faultPoint("import-done");
    return input.replace || aside.length
      ? { backupDir: input.backupDir, refs, claudeFiles: aside.map((p) => p.to) }
      : null;
  } catch (error) {
    await work.rollBack().catch(() => undefined);
    throw error;
  }
}

/** The session under the id moves aside: its folder and private index into the backup folder, its refs under refs/nudge/import-backups/. */
async function setAside(
  store: Store,
  id: string,
  refs: Array<{ ref: string; commit: string }>,
  backupDir: string,
  work: Work,
): Promise<string[]> {
  const dir = bundleDir(store, id);
  const kept = path.join(backupDir, "session");
  await work.will({ kind: "renamed", from: dir, to: kept });
  await fs.rename(dir, kept);
  const index = path.join(store.dir, "index", id);
  if (await fs.lstat(index).catch(() => null)) {
    await work.will({ kind: "renamed", from: index, to: path.join(backupDir, "index") });
    await fs.rename(index, path.join(backupDir, "index"));
  }
  const prefix = `refs/nudge/import-backups/${path.basename(backupDir)}`;
  const moves = refs.map((r) => ({
    from: r.ref,
    to: `${prefix}/${r.ref === `refs/nudge/sessions/${id}` ? "session" : r.ref.split("/").at(-1)}`,
    commit: r.commit,
  }));
  await work.will({ kind: "moved-refs", moves });
  await git.moveRefs(store.repoRoot, moves);
  return moves.map((m) => m.to);
}

/** claude's files into its project folder: folders made as needed (and removed again on failure), no file overwritten but one this one begins with. */
async function place(placements: Placement[], work: Work): Promise<void> {
  for (const p of placements) {
    if (p.state === "same" || p.state === "longer" || p.state === "holds") continue; // claude's own copy stays as it is
    for (const folder of missingFolders(path.dirname(p.to), await existing(path.dirname(p.to)))) {
      await work.will({ kind: "folder", path: folder });
      await fs.mkdir(folder);
    }
    faultPoint("import-place");
    if (p.state === "extends") {
      // claude's file is where this one starts: the longer one goes in whole (a rename), and an undo cuts it back to what it was.
      const had = (await fs.stat(p.to)).size;
      const temp = `${p.to}.nudge-import-${process.pid}`;
      await work.will({ kind: "made", path: temp });
      await fs.copyFile(p.from, temp, fs.constants.COPYFILE_EXCL);
      await work.will({ kind: "extended", path: p.to, size: had });
      await fs.rename(temp, p.to);
      continue;
    }
    await work.will({ kind: "made", path: p.to });
    await fs.copyFile(p.from, p.to, fs.constants.COPYFILE_EXCL);
  }
}

/** The deepest folder on the way to `dir` that exists. */
async function existing(dir: string): Promise<string> {
  for (let at = dir; ; at = path.dirname(at)) {
    if (
      await fs.stat(at).then(
        (s) => s.isDirectory(),
        () => false,
      )
    )
      return at;
    if (path.dirname(at) === at) return at;
  }
}

/** The folders from just below `have` down to `dir`, outermost first. */
function missingFolders(dir: string, have: string): string[] {
  const out: string[] = [];
  for (let at = dir; at !== have && path.dirname(at) !== at; at = path.dirname(at)) out.unshift(at);
  return out;
}
