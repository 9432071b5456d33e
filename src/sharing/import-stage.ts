/**
 * The imported session as it will be installed, made in a private folder first: the bundle's
 * files with claude's transcripts moved to this clone (its work tree and this user's claude
 * project folder; relocate.ts), the manifest rewritten (new id if it must change, the repo at
 * this clone, the origin), and where each of claude's files goes under `$CLAUDE_CONFIG_DIR`.
 */
import { createHash } from "node:crypto";
import { createReadStream, promises as fs } from "node:fs";
import path from "node:path";
import { MANIFEST_FORMAT, turnSteps, type Manifest } from "../store/manifest-schema.js";
import { bundleFiles, writeBundle } from "../store/store.js";
import { imagesDir } from "../store/image-store.js";
import { summaryOf } from "../store/summary.js";
import { resumePoint } from "../store/turn-lookup.js";
import { encodeProjectDir } from "../claude/transcript.js";
import { sessionRef } from "../snapshot/snapshotter.js";
import type { ExportContents } from "./import-contents.js";
import { remapOffsets } from "./line-offsets.js";
import { relocateTranscript, transcriptMoves } from "./relocate.js";
import { listFiles } from "./list-files.js";
import { renameDiverged } from "./diverged-copy.js";
import { packLive } from "../store/piece-writing.js";
import { claudeSessionIdOf, transcriptName } from "../store/transcript-name.js";
import { copyCompressedPrefix, GZ_SUFFIX } from "../store/transcript-copy.js";

export interface ImportTarget {
  id: string;
  root: string;
  /** The linked worktree's name, null for the main work tree. */
  worktree: string | null;
  claudeConfigDir: string;
  importedAt: string;
  /** Another version of claude's transcript here (a conversation continued apart): give the incoming one a fresh claude id (else it stays "different"). */
  keepBoth: boolean;
  /** The fork's parent as this store knows it (import-parent.ts). */
  parent: Manifest["parent"];
}

export interface Placement {
  /** The staged file. */
  from: string;
  /** Where claude looks for it. */
  to: string;
  /**
   * new: nothing there yet; same: the same bytes are there already; longer: claude's file there
   * starts with these bytes and goes on (the same conversation, continued: it is kept as it is);
   * holds: another copy of this conversation is there, with the export's last reply in it (the
   * original an export masked secrets in, perhaps continued since: it is kept as it is);
   * extends: claude's file there is where this one starts (an earlier part of the same
   * conversation, say from a fork's export): this one replaces it, nothing of it is lost;
   * beside: another version of this conversation is there (continued apart): this one goes
   * beside it under a fresh claude session id;
   * different: another file is there.
   */
  state: "new" | "same" | "longer" | "holds" | "extends" | "beside" | "different";
}

export interface StagedSession {
  dir: string;
  manifest: Manifest;
  /** claude's project folder for this clone's cwd. */
  projectDir: string;
  placements: Placement[];
}

const LOGS = ["conversation.jsonl", "timing.txt", "input.jsonl", "input-timing.txt"];

/** The export's patches, moved into the staged session (see `stageSession`). */
export async function placePatches(contents: ExportContents, dir: string): Promise<void> {
  const patches = contents.turns.flatMap(turnSteps).map((s) => s.patch.file);
  await Promise.all(patches.map((name) => fs.rename(path.join(contents.sessionDir, name), path.join(dir, name))));
}

export async function stageSession(
  contents: ExportContents,
  target: ImportTarget,
  dir: string,
): Promise<StagedSession> {
  const { index } = contents;
  const files = bundleFiles(dir);
  const src = (name: string) => path.join(contents.sessionDir, name);
  await fs.mkdir(files.changes, { recursive: true });
  await fs.mkdir(files.transcripts, { recursive: true });
  // Moved, not copied: the unpacked export is thrown away after staging, and it is on the same disk
  // (both in the import's work folder), so every byte is not written a second time. The patches
  // are moved by `placePatches`, once the code's check (which reads them) is done.
  const moved = new Set([...LOGS, ...contents.images]);
  if (contents.images.length > 0) await fs.mkdir(imagesDir(dir));
  await Promise.all([
    ...[...moved].map((name) => fs.rename(src(name), path.join(dir, name))),
    fs.writeFile(files.stderr, ""),
  ]);

  const cwd = path.join(target.root, contents.relativeCwd);
  const projectDir = path.join(target.claudeConfigDir, "projects", encodeProjectDir(cwd));
  const moves = transcriptMoves({
    oldRoot: index.exported.repoRoot,
    newRoot: target.root,
    oldProjectDir: index.exported.claudeProjectDir,
    newProjectDir: projectDir,
  });
  const lengths = new Map<string, Map<number, number>>();
  const placements: Placement[] = [];
  for (const rel of await listFiles(src("claude"))) {
    const from = path.join(src("claude"), ...rel.split("/"));
    const to = path.join(files.transcripts, ...rel.split("/"));
    await fs.mkdir(path.dirname(to), { recursive: true });
    if (rel.endsWith(".jsonl")) await relocateTranscript(from, to, moves);
    else await fs.copyFile(from, to);
    const main = /^[^/]+\.jsonl$/.test(rel);
    if (main) {
      const offsets = contents.turns.flatMap((t) =>
        t.transcript === `claude/${rel}` && t.transcriptBytes != null ? [t.transcriptBytes] : [],
      );
      lengths.set(`claude/${rel}`, await remapOffsets(from, to, offsets));
    }
    const placed = path.join(projectDir, ...rel.split("/"));
    placements.push({ from: to, to: placed, state: await compare(to, placed) });
  }

  const ref = sessionRef(target.id);
  const recorded = contents.turns.map((t) => ({
    ...t,
    snapshot: { ...t.snapshot, ref },
    ...(t.edits ? { edits: { ...t.edits, snapshot: { ...t.edits.snapshot, ref } } } : {}),
    ...(t.transcript && t.transcriptBytes != null
      ? { transcriptBytes: lengths.get(t.transcript)?.get(t.transcriptBytes) ?? t.transcriptBytes }
      : {}),
  }));
  const { header } = contents;
  const last = resumePoint({ ...header, turns: recorded, unsaved: [] }, recorded.at(-1)!.n);
  await keepOtherCopies(placements, projectDir, last?.atUuid ?? null);
  const renamed = target.keepBoth ? await renameDiverged(placements, projectDir) : new Map<string, string>();
  const renameTurn = (t: (typeof recorded)[number]) => {
    const session = t.claudeSessionId && renamed.get(t.claudeSessionId);
    const file = t.transcript && renamed.get(claudeSessionIdOf(t.transcript));
    return {
      ...t,
      ...(session ? { claudeSessionId: session } : {}),
      ...(file ? { transcript: transcriptName(file) } : {}),
    };
  };
  // claude's copy there is this conversation continued further: resume from the export's last reply, in a fork.
  const continued = placements.some(
    (p) => (p.state === "longer" || p.state === "holds") && /\.jsonl$/.test(p.to) && path.dirname(p.to) === projectDir,
  );
  const turns = recorded.map(renameTurn);
  const point = continued && !header.resume ? last : null;
  const resumeAt = point ? { claudeSessionId: point.claudeSessionId, atUuid: point.atUuid } : header.resume;
  const resume = resumeAt && {
    ...resumeAt,
    claudeSessionId: renamed.get(resumeAt.claudeSessionId) ?? resumeAt.claudeSessionId,
  };
  const manifest: Manifest = {
    ...header,
    format: MANIFEST_FORMAT,
    id: target.id,
    updatedAt: target.importedAt, // `claude run -c` here continues the session imported last
    state: "complete",
    repo: { ...header.repo, root: target.root, cwd, worktree: target.worktree },
    parent: target.parent,
    resume,
    origin: {
      exportedBy: exporter(index),
      exportedAt: index.exported.at,
      ...(index.exported.writtenAt ? { writtenAt: index.exported.writtenAt } : {}),
      root: index.exported.repoRoot,
      cwd: index.exported.cwd,
      importedAt: target.importedAt,
      sourceId: index.session.id,
    },
    summary: summaryOf(turns),
    turns,
    unsaved: [],
  };
  await compressCopies(files.transcripts, `${dir}.plain`, placements);
  // The stream is kept in compressed pieces, as a recording keeps it (the export carries it plain).
  await packLive(dir);
  await writeBundle(dir, manifest);
  return { dir, manifest, projectDir, placements };
}

/**
 * The bundle keeps claude's main transcripts compressed (store/transcript-copy.ts), as recording
 * does; the plain files move beside the staged bundle, in the import's work folder, to be placed
 * in claude's project folder from there.
 */
async function compressCopies(folder: string, plainDir: string, placements: Placement[]): Promise<void> {
  for (const name of (await fs.readdir(folder)).filter((n) => /^[A-Za-z0-9_-]{1,128}\.jsonl$/.test(n))) {
    const plain = path.join(folder, name);
    if (!(await fs.lstat(plain)).isFile()) continue;
    await copyCompressedPrefix({ file: plain, compressed: false }, plain + GZ_SUFFIX, (await fs.stat(plain)).size);
    await fs.mkdir(plainDir, { recursive: true });
    const moved = path.join(plainDir, name);
    await fs.rename(plain, moved);
    for (const p of placements) if (p.from === plain) p.from = moved;
  }
}

/**
 * Re-importing one's own export where it was recorded: claude's transcript there is the original,
 * which the export's masked copy differs from. When it holds the export's last reply (same uuid),
 * it is the same conversation: keep it and its side files rather than refuse.
 */
async function keepOtherCopies(placements: Placement[], projectDir: string, lastUuid: string | null): Promise<void> {
  if (!lastUuid) return;
  for (const main of placements.filter(
    (p) => p.state === "different" && /\.jsonl$/.test(p.to) && path.dirname(p.to) === projectDir,
  )) {
    // Unreadable (a folder, no permission): not known to be the same conversation, so "different" it stays.
    if (!(await fileContains(main.to, `"uuid":"${lastUuid}"`).catch(() => false))) continue;
    const sideFolder = main.to.slice(0, -".jsonl".length) + path.sep;
    main.state = "holds";
    for (const side of placements)
      if (side.state === "different" && side.to.startsWith(sideFolder)) side.state = "holds";
  }
}

async function fileContains(file: string, needle: string): Promise<boolean> {
  const wanted = Buffer.from(needle);
  let tail = Buffer.alloc(0);
  for await (const chunk of createReadStream(file)) {
    const window = Buffer.concat([tail, chunk as Buffer]);
    if (window.includes(wanted)) return true;
    tail = window.subarray(Math.max(0, window.length - wanted.length + 1));
  }
  return false;
}

/** Who exported it, as git names people: "Ana <ana@example.com>", or whichever half is known. */
export function exporter(index: ExportContents["index"]): string | null {
  const { name, email } = index.exported.by;
  return name && email ? `${name} <${email}>` : (name ?? email);
}

/** Whether `placed` is free, holds the same bytes as `staged`, holds them and more, or holds something else. */
async function compare(staged: string, placed: string): Promise<Placement["state"]> {
  const there = await fs.lstat(placed).catch(() => null);
  if (!there) return "new";
  const size = (await fs.stat(staged)).size;
  if (there.isFile() && there.size < size && (await sha256(staged, there.size)) === (await sha256(placed)))
    return "extends";
  if (!there.isFile() || there.size < size) return "different";
  if ((await sha256(placed, size)) !== (await sha256(staged))) return "different";
  return there.size === size ? "same" : "longer";
}

async function sha256(file: string, bytes?: number): Promise<string> {
  const hash = createHash("sha256");
  if (bytes === 0) return hash.digest("hex");
  for await (const chunk of createReadStream(file, bytes === undefined ? {} : { start: 0, end: bytes - 1 }))
    hash.update(chunk as Buffer);
  return hash.digest("hex");
}
