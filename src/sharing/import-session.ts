/**
 * `nudge session import`: an export from anyone, into this clone. Everything is checked before
 * anything is written — the archive (export-reader.ts), the session in it (import-contents.ts),
 * its code in a scratch repository (import-code.ts) — then staged with this clone's paths
 * (import-stage.ts) and installed in one go that undoes itself on failure (import-install.ts).
 * One import runs at a time in a store (its lock). The archive is unpacked and staged in a work
 * folder inside the store (cut-off-work.ts), removed whatever happens; a killed import's folder,
 * and whatever it had installed, is cleared by the next nudge command (cut-off-recovery.ts).
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { beginWork } from "../store/cut-off-work.js";
import { importLockFile } from "../store/cut-off-recovery.js";
import { acquireLock, holderText, lockActivity } from "../store/locks.js";
import { faultPoint } from "../base/fault-injection.js";
import { pathExists } from "../base/file-exists.js";
import { bundleDir, bundleFiles, listSessions, newSessionId, sessionIds, type Store } from "../store/store.js";
import { claudeConfigDir } from "../claude/transcript.js";
import * as git from "../snapshot/git.js";
import { sessionRef } from "../snapshot/snapshotter.js";
import { worktreeName } from "../live/open-session.js";
import { openExport } from "./export-reader.js";
import { SESSION_DIR } from "./archive-path.js";
import { checkCode, codeRefs } from "./import-code.js";
import { readContents, type ExportContents } from "./import-contents.js";
import { installSession, type SetAside } from "./import-install.js";
import type { Work } from "../store/cut-off-work.js";
import { exporter, placePatches, stageSession, type Placement } from "./import-stage.js";
import { streamSize } from "../store/conversation-pieces.js";
import { streamRange } from "../store/stream-range.js";
import { formatBytes, raisedLimits, refusing } from "./limits.js";
import { parentHere } from "./import-parent.js";
import type { Manifest } from "../store/manifest-schema.js";

export interface ImportOptions {
  force: boolean;
  dryRun: boolean;
  /** --max-size: the most the archive may unpack to, per entry and in total (default: limits.ts). */
  maxBytes?: number;
  env?: NodeJS.ProcessEnv;
  progress?: (line: string) => void;
  /** For tests: the clock. */
  now?: () => Date;
  /** A pull of a published fork: the session here it continues, for a session whose export names no parent. */
  lineage?: Manifest["parent"];
  /** What the import is, as a later command names it if this one is cut off (default: an import of <file>). */
  what?: string;
}

export interface ImportResult {
  /** imported; already: this export is here (as `id`), nothing was done; dry-run: what would be installed. */
  status: "imported" | "already" | "dry-run";
  id: string;
  sourceId: string;
  /** Why the id differs from the exported one, or replaced it. */
  idChange: "fresh" | "replaced" | null;
  dir: string;
  turns: number;
  origin: { exportedBy: string | null; exportedAt: string; writtenAt: string | null; root: string; cwd: string };
  refs: string[];
  /** Commits the export carried (on no remote-tracking branch where it was made). */
  carried: string[];
  /** claude's files: where each goes, and whether it was already there. */
  claudeFiles: Array<{ path: string; state: Placement["state"] }>;
  /** What --force set aside. */
  setAside: SetAside | null;
  /** With `already`: turns the installed copy gained since (it was continued here). */
  continuedBy?: number;
}

const LARGE_BYTES = 8 * 1024 * 1024;

export async function importSession(store: Store, archive: string, o: ImportOptions): Promise<ImportResult> {
  // A clone with no store yet: an import refused, or a dry run, leaves none, not even empty folders.
  const storeWasThere = await pathExists(store.dir);
  let imported = false;
  try {
    const result = await importLocked(store, archive, o);
    imported = result.status === "imported";
    return result;
  } finally {
    if (!storeWasThere && !imported) await removeEmptyFolders(store.dir);
  }
}

async function importLocked(store: Store, archive: string, o: ImportOptions): Promise<ImportResult> {
  const lock = await acquireLock(importLockFile(store), {
    what: `importing ${path.basename(archive)}`,
    // Imports take seconds: the second of two waits its turn, rather than race for the same id.
    waitMs: 120_000,
    busy: (holder) =>
      new UserError(
        `another import into this repository is running (${holderText(holder)}: ${holder.what ?? "an import"})`,
        "wait for it to finish, then import again",
      ),
  });
  try {
    const work = await beginWork(store, "import", o.what ?? `an import of ${path.basename(archive)}`);
    try {
      return await importInto(store, archive, o, work);
    } finally {
      await work.finish();
    }
  } finally {
    await lock.release();
  }
}

async function importInto(store: Store, archive: string, o: ImportOptions, work: Work): Promise<ImportResult> {
  const name = path.basename(archive);
  // Unpacked and staged in the store: installing moves the bundle folder, and a kill leaves nothing in /tmp.
  const opened = await openExport(archive, {
    tempParent: work.dir,
    copies: 2,
    placeName: store.dir,
    limits: o.maxBytes ? raisedLimits(o.maxBytes) : {},
  });
  faultPoint("import-unpacked");
  try {
    const contents = await readContents(opened).catch(refusing(name));
    const large = opened.index.entries.reduce((n, e) => n + e.bytes, 0) > LARGE_BYTES;
    const progress = (line: string) => (large ? o.progress?.(line) : undefined);
    const origin = {
      exportedBy: exporter(contents.index),
      exportedAt: contents.index.exported.at,
      writtenAt: contents.index.exported.writtenAt ?? null,
      root: contents.index.exported.repoRoot,
      cwd: contents.index.exported.cwd,
    };
    const base = {
      sourceId: contents.index.session.id,
      turns: contents.index.session.turns,
      carried: contents.git.carried,
    };

    const here = await alreadyImported(store, contents);
    if (here) {
      return {
        ...base,
        status: "already",
        id: here.id,
        idChange: null,
        dir: bundleDir(store, here.id),
        origin,
        refs: [],
        claudeFiles: [],
        setAside: null,
        continuedBy: here.continuedBy,
      };
    }
    const target = await chooseId(store, contents.index.session.id, o.force);
    const refs = await codeRefs(contents, target.id).catch(refusing(name));
    progress("checking the code: the git bundle, every snapshot and patch…");
    // The code is checked (mostly waiting on git) while the session is staged (nudge's own work, in
    // the work folder): both settled before either's failure is told, the code's first, as when
    // one came after the other.
    const now = (o.now ?? (() => new Date()))();
    const [checked, stagedNow] = await Promise.allSettled([
      checkCode(store.repoRoot, contents, refs, path.join(work.dir, "index"), progress).catch(refusing(name)),
      (async () =>
        stageSession(
          contents,
          {
            id: target.id,
            root: store.repoRoot,
            worktree: worktreeName(store),
            claudeConfigDir: claudeConfigDir(o.env ?? process.env),
            importedAt: now.toISOString(),
            keepBoth: !o.force,
            parent:
              (await parentHere(store, contents.header.parent)) ??
              (o.lineage && o.lineage.id !== target.id ? o.lineage : null),
          },
          path.join(work.dir, "bundle"),
        ))(),
    ]);
    if (checked.status === "rejected") throw checked.reason;
    if (stagedNow.status === "rejected") throw stagedNow.reason;
    const { pack } = checked.value;
    const staged = stagedNow.value;
    await placePatches(contents, path.join(work.dir, "bundle"));
    faultPoint("import-staged");
    const different = staged.placements.filter((p) => p.state === "different");
    if (different.length && !o.force) {
      throw new UserError(
        `claude already has another version of ${path.basename(different[0]!.to)} in ${path.dirname(different[0]!.to)} (from an earlier import?)`,
        "nothing was imported; --force sets claude's file aside (it is kept, and the import says where) and puts this one there",
      );
    }
    const result: ImportResult = {
      ...base,
      status: o.dryRun ? "dry-run" : "imported",
      id: target.id,
      idChange: target.change,
      dir: bundleDir(store, target.id),
      origin,
      refs: refs.refs.map((r) => r.ref),
      claudeFiles: staged.placements.map((p) => ({ path: p.to, state: p.state })),
      setAside: null,
    };
    if (o.dryRun) return result;
    await checkClaudeSpace(staged.placements, staged.projectDir);

    progress("installing…");
    result.setAside = await installSession({
      store,
      staged,
      bundleFile: contents.bundleFile,
      pack,
      refs: refs.refs.map(({ ref, commit }) => ({ ref, commit })),
      replace: target.change === "replaced" ? { refs: target.refs } : null,
      backupDir: path.join(store.dir, "import-backups", `${target.id}-${now.toISOString().replace(/[:.]/g, "-")}`),
      work,
    });
    return result;
  } finally {
    await opened.remove();
  }
}

/** The folders under `dir` (and `dir`) that hold no file, removed deepest first; one that does (another command's) stays. */
async function removeEmptyFolders(dir: string): Promise<void> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => null);
  if (!entries) return;
  for (const e of entries) if (e.isDirectory()) await removeEmptyFolders(path.join(dir, e.name));
  await fs.rmdir(dir).catch(() => undefined);
}

/** claude's config dir may be on another disk than the store: what goes there must fit too. */
async function checkClaudeSpace(placements: Placement[], projectDir: string): Promise<void> {
  let bytes = 0;
  for (const p of placements) if (p.state === "new" || p.state === "different") bytes += (await fs.stat(p.from)).size;
  let at = projectDir;
  while (
    !(await fs.stat(at).then(
      (s) => s.isDirectory(),
      () => false,
    )) &&
    path.dirname(at) !== at
  )
    at = path.dirname(at);
  const stats = await fs.statfs(at);
  const free = stats.bavail * stats.bsize;
  if (bytes > free)
    throw new UserError(
      `not enough disk space for claude's files of this session: they need ${formatBytes(bytes)}, and ${at} has ${formatBytes(free)} free`,
      "free some space there, then import again; nothing was imported",
    );
}

/**
 * A session here that came from this very export: the same source session, exported at the same
 * moment, whose conversation starts with the export's byte for byte (it may have been continued since).
 */
async function alreadyImported(
  store: Store,
  contents: ExportContents,
): Promise<{ id: string; continuedBy: number } | null> {
  const { index } = contents;
  const exported = index.entries.find((e) => e.path === `${SESSION_DIR}/conversation.jsonl`)!;
  for (const s of await listSessions(store)) {
    const origin = s.header.origin;
    if (!origin || origin.sourceId !== index.session.id || origin.exportedAt !== index.exported.at) continue;
    const size = await streamSize(s.dir).catch(() => -1);
    if (size < exported.bytes || (await streamSha256(s.dir, exported.bytes)) !== exported.sha256) continue;
    if (s.header.summary.turns < index.session.turns) continue;
    return { id: s.header.id, continuedBy: s.header.summary.turns - index.session.turns };
  }
  return null;
}

type Chosen =
  | { id: string; change: null }
  | { id: string; change: "fresh" }
  | { id: string; change: "replaced"; refs: Array<{ ref: string; commit: string }> };

/** The exported id when it is free here; else a fresh one, or (--force) the same one, replacing what is there. */
async function chooseId(store: Store, id: string, force: boolean): Promise<Chosen> {
  const refs = await git.listRefs(store.repoRoot, ["refs/nudge/"]);
  const refsOf = (x: string) =>
    refs.filter((r) => r.ref === sessionRef(x) || new RegExp(`^refs/nudge/${x}/\\d+$`).test(r.ref));
  const ids = new Set(await sessionIds(store));
  const taken = (x: string) => ids.has(x) || refsOf(x).length > 0;
  if (!taken(id)) return { id, change: null };
  if (force && ids.has(id)) {
    const activity = await lockActivity(bundleFiles(bundleDir(store, id)).lock);
    if (activity) {
      throw new UserError(
        `session ${id} is ${activity === "recording" ? "being recorded" : `still running its claude (pid ${activity.orphanPid})`}; it cannot be replaced now`,
        "import without --force to get it under a fresh id, or finish that session first",
      );
    }
    return { id, change: "replaced", refs: refsOf(id).map(({ ref, commit }) => ({ ref, commit })) };
  }
  for (;;) {
    const fresh = newSessionId();
    if (!taken(fresh)) return { id: fresh, change: "fresh" };
  }
}

/** sha256 of the stream's first `bytes` bytes, wherever its pieces lie. */
async function streamSha256(dir: string, bytes: number): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of streamRange(dir, 0, bytes)) hash.update(chunk);
  return hash.digest("hex");
}
