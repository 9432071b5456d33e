/**
 * An export tarball: `<top>/nudge-export.json` first, then every file in name order, each listed
 * in the index with its size and sha256. The caller says what goes in; this measures it.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { InternalError } from "../base/errors.js";
import { sha256 } from "../snapshot/patch-stats.js";
import { isEntryPath, isTopFolder } from "./archive-path.js";
import { ExportIndexSchema, INDEX_NAME, type ExportEntry, type ExportIndex } from "./export-index.js";
import { writeTarGz, type TarFile, type TarSource } from "./tar-writer.js";

export interface ExportFile {
  /** Inside the top folder: `session/conversation.jsonl`. */
  path: string;
  source: TarSource;
}

export interface ExportInput {
  /** The archive's top folder, e.g. `nudge-1e834beb3b`. */
  top: string;
  index: Omit<ExportIndex, "entries">;
  files: ExportFile[];
}

/** Write the export at `out` (atomically; `beforeTemp` hears of the temp file first). Returns the archive's size and the index it holds. */
export async function writeExport(
  out: string,
  input: ExportInput,
  beforeTemp?: (temp: string) => Promise<void>,
): Promise<{ bytes: number; index: ExportIndex }> {
  if (!isTopFolder(input.top)) throw new InternalError(`bad top folder for an export: ${JSON.stringify(input.top)}`);
  const files = [...input.files].sort((a, b) => compareBytes(a.path, b.path));
  const measured: Array<ExportEntry & { source: TarSource }> = [];
  for (const file of files) {
    if (!isEntryPath(file.path) || file.path === INDEX_NAME)
      throw new InternalError(`bad path for an export entry: ${JSON.stringify(file.path)}`);
    measured.push({ path: file.path, source: file.source, ...(await measure(file.source)) });
  }
  const parsed = ExportIndexSchema.safeParse({
    ...input.index,
    entries: measured.map(({ path, bytes, sha256 }) => ({ path, bytes, sha256 })),
  });
  if (!parsed.success) throw new InternalError(`the export index does not match its schema: ${parsed.error.message}`);
  const index = parsed.data;
  const indexBytes = Buffer.from(JSON.stringify(index, null, 2) + "\n");
  const tarFiles: TarFile[] = [
    { path: `${input.top}/${INDEX_NAME}`, source: indexBytes, bytes: indexBytes.length, sha256: sha256(indexBytes) },
    ...measured.map((m) => ({ path: `${input.top}/${m.path}`, source: m.source, bytes: m.bytes, sha256: m.sha256 })),
  ];
  const { bytes } = await writeTarGz(out, tarFiles, beforeTemp);
  return { bytes, index };
}

/** Size and sha256 of a source, a file streamed rather than read whole. */
export async function measure(source: TarSource): Promise<{ bytes: number; sha256: string }> {
  if (source instanceof Uint8Array) return { bytes: source.byteLength, sha256: sha256(source) };
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(source.file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest("hex") };
}

/** Byte order, not locale order: the same on every machine. Paths are ASCII (archive-path.ts). */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
