/**
 * The images an export carries: those the exported lines name (`images/<sha256>` in the bundle,
 * image-store.ts), once each, as `session/images/<sha256>`. Images are not scanned for secrets
 * (export-images-note.ts says so). One missing or damaged here refuses the export: its lines
 * would name an image the archive lacks, which import refuses (import-contents.ts), and nothing
 * could put it back there.
 */
import path from "node:path";
import { IMAGES_DIR, imageRefsInFile, imagesDir } from "../store/image-store.js";
import { UserError } from "../base/errors.js";
import { measure, type ExportFile } from "./export-writer.js";

export async function exportedImages(
  bundleDir: string,
  stagedLogs: string[],
  sessionDir: string,
): Promise<ExportFile[]> {
  const hashes = new Set<string>();
  const namedBy = new Map<string, string>();
  for (const file of stagedLogs) {
    for (const hash of await imageRefsInFile(file)) {
      hashes.add(hash);
      if (!namedBy.has(hash)) namedBy.set(hash, path.basename(file));
    }
  }
  const files: ExportFile[] = [];
  for (const hash of [...hashes].sort()) {
    const file = path.join(imagesDir(bundleDir), hash);
    const found = await measure({ file }).catch(() => null);
    if (found?.sha256 !== hash) {
      throw new UserError(
        `the session's ${namedBy.get(hash)} names the image ${IMAGES_DIR}/${hash.slice(0, 12)}…, which is ${found ? "damaged" : "missing"} in its bundle (${file})`,
        "put the image back there from a backup, or export only the turns before the prompt that carried it (--upto N)",
      );
    }
    files.push({ path: `${sessionDir}/${IMAGES_DIR}/${hash}`, source: { file } });
  }
  return files;
}
