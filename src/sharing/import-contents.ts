/**
 * The session inside an opened export, read and checked before anything is written: its
 * manifest and journal against their schemas and against the index, every file either names
 * present (each patch with the sha256 its turn records), nothing in the archive that is not part
 * of a session, and positions that stay inside their files. The reader (export-reader.ts) has
 * already checked the archive itself: names, types, sizes, every sha256 against the index.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import {
  MANIFEST_FORMAT,
  ManifestHeaderSchema,
  turnSteps,
  type ManifestHeader,
  type Turn,
} from "../store/manifest-schema.js";
import { foldJournal, parseJournal } from "../store/turn-journal.js";
import type { ExportIndex } from "./export-index.js";
import type { OpenedExport } from "./export-reader.js";
import { SESSION_DIR } from "./archive-path.js";
import { Refusal } from "./limits.js";
import { claudeSessionIdOf } from "../store/transcript-name.js";
import { carriedImages } from "./import-images.js";
import { IMAGES_DIR, imageRefsInFile } from "../store/image-store.js";

export interface ExportContents {
  index: ExportIndex;
  header: ManifestHeader;
  turns: Turn[];
  git: NonNullable<ExportIndex["git"]>;
  /** The images it carries, as named in a bundle: `images/<sha256>`, each checked. */
  images: string[];
  /** The session's folder inside the extracted archive (its files laid out as in a bundle). */
  sessionDir: string;
  bundleFile: string;
  /** The session's cwd relative to its work tree's top ("" at the top). */
  relativeCwd: string;
}

/** The files every exported session has, inside session/. */
const LOGS = ["manifest.json", "turns.jsonl", "conversation.jsonl", "timing.txt", "input.jsonl", "input-timing.txt"];

/** What the export holds, checked (a `Refusal` names what is wrong). */
export async function readContents(opened: OpenedExport): Promise<ExportContents> {
  const { index } = opened;
  const entries = new Map(index.entries.map((e) => [e.path, e]));
  const git = index.git;
  if (!git) throw new Refusal("it holds no code (no git bundle)");
  for (const name of [...LOGS.map((l) => `${SESSION_DIR}/${l}`), git.bundle])
    if (!entries.has(name)) throw new Refusal(`it lacks ${name}`);

  const header = parseHeader(await fs.readFile(opened.file(`${SESSION_DIR}/manifest.json`), "utf8"));
  if (header.id !== index.session.id)
    throw new Refusal(`its manifest is of session ${header.id}, its index of ${index.session.id}`);
  const journalText = await fs.readFile(opened.file(`${SESSION_DIR}/turns.jsonl`), "utf8");
  let folded: ReturnType<typeof foldJournal>;
  try {
    folded = foldJournal(parseJournal(journalText, `${SESSION_DIR}/turns.jsonl`));
  } catch (error) {
    throw new Refusal((error as Error).message); // names session/turns.jsonl and the line
  }
  const turns = folded.turns;
  if (folded.unsaved.length || turns.some((t, i) => t.n !== i) || turns.length === 0)
    throw new Refusal("its turns are not numbered 0, 1, 2, … without gaps");
  if (turns.length - 1 !== index.session.turns)
    throw new Refusal(`its index says ${index.session.turns} turns, its journal holds ${turns.length - 1}`);

  // Every file a turn names, present and as recorded; every entry, something a session has.
  const expected = new Set([...LOGS.map((l) => `${SESSION_DIR}/${l}`), git.bundle]);
  const claudeIds = new Set(index.session.claudeSessionIds);
  for (const t of turns) {
    for (const { patch } of turnSteps(t)) {
      const name = `${SESSION_DIR}/${patch.file}`;
      const entry = entries.get(name);
      if (!entry) throw new Refusal(`it lacks ${name}, the patch of turn ${t.n}`);
      if (entry.sha256 !== patch.sha256 || entry.bytes !== patch.bytes)
        throw new Refusal(`${name} is not the patch turn ${t.n} recorded (its sha256 differs)`);
      expected.add(name);
    }
    if (t.transcript) {
      const name = `${SESSION_DIR}/${t.transcript}`;
      const entry = entries.get(name);
      if (!entry || !claudeIds.has(claudeSessionIdOf(t.transcript)))
        throw new Refusal(`it lacks ${name}, claude's transcript of turn ${t.n}`);
      if ((t.transcriptBytes ?? 0) > entry.bytes) throw new Refusal(`turn ${t.n} says ${name} was longer than it is`);
      expected.add(name);
    }
  }
  const images = carriedImages(index.entries, SESSION_DIR);
  for (const image of images) expected.add(`${SESSION_DIR}/${image}`);
  // Every image the lines name, carried: one missing would read back as its reference, not the image.
  for (const log of ["input.jsonl", "conversation.jsonl"]) {
    for (const hash of await imageRefsInFile(opened.file(`${SESSION_DIR}/${log}`))) {
      if (!images.includes(`${IMAGES_DIR}/${hash}`))
        throw new Refusal(
          `its ${SESSION_DIR}/${log} names the image ${SESSION_DIR}/${IMAGES_DIR}/${hash}, which it lacks`,
        );
    }
  }
  for (const entry of index.entries) {
    const side = new RegExp(`^${SESSION_DIR}/claude/([A-Za-z0-9_-]{1,128})/`).exec(entry.path);
    if (!expected.has(entry.path) && !(side && claudeIds.has(side[1]!)))
      throw new Refusal(`entry ${entry.path} is not part of a session`);
  }
  const conversation = entries.get(`${SESSION_DIR}/conversation.jsonl`)!;
  const outside = turns.find((t) => t.bytes && (t.bytes.from > t.bytes.to || t.bytes.to > conversation.bytes));
  if (outside) throw new Refusal(`turn ${outside.n}'s place in the conversation lies outside it`);
  const tip = turns.at(-1)!.snapshot.commit;
  if (header.repo.baseCommit && !isObjectId(header.repo.baseCommit, tip))
    throw new Refusal("its base commit and snapshots are in different hashes");

  const relativeCwd = path.posix.relative(index.exported.repoRoot, index.exported.cwd);
  if (relativeCwd.startsWith("..") || path.posix.isAbsolute(relativeCwd))
    throw new Refusal(`its working folder ${index.exported.cwd} is outside its work tree ${index.exported.repoRoot}`);
  return {
    index,
    header,
    turns,
    git,
    images,
    sessionDir: opened.file(SESSION_DIR),
    bundleFile: opened.file(git.bundle),
    relativeCwd,
  };
}

function parseHeader(text: string): ManifestHeader {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Refusal(`its ${SESSION_DIR}/manifest.json is not valid JSON`);
  }
  const format = (json as { format?: unknown } | null)?.format;
  if (typeof format === "number" && format > MANIFEST_FORMAT) {
    throw new Refusal(
      `its session is in bundle format ${format}, newer than this nudge reads (${MANIFEST_FORMAT})`,
      "upgrade nudge, then import it again",
    );
  }
  const parsed = ManifestHeaderSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Refusal(
      `its ${SESSION_DIR}/manifest.json does not match the bundle format (${issue.path.join(".") || "manifest"}: ${issue.message})`,
    );
  }
  return parsed.data;
}

/** Two object ids of the same hash (SHA-1: 40 hex digits, SHA-256: 64). */
function isObjectId(id: string, like: string): boolean {
  return id.length === like.length;
}
