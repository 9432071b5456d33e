/**
 * The images an export carries: those the exported lines name (`images/<sha256>` in the bundle,
 * image-store.ts), once each, as `session/images/<sha256>`. Images are not scanned for secrets
 * (export-images-note.ts says so). One missing or damaged here is left out, and its lines keep
 * their reference, as they read here.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { IMAGES_DIR, imageRefsIn, imagesDir } from "../bundle/image-store.js";
import { measure, type ExportFile } from "./export-writer.js";

export async function exportedImages(bundleDir: string, stagedLogs: string[], sessionDir: string): Promise<ExportFile[]> {
  const hashes = new Set<string>();
  for (const file of stagedLogs) for (const hash of imageRefsIn(await fs.readFile(file))) hashes.add(hash);
  const files: ExportFile[] = [];
  for (const hash of [...hashes].sort()) {
    const file = path.join(imagesDir(bundleDir), hash);
    const found = await measure({ file }).catch(() => null);
    if (found?.sha256 === hash) files.push({ path: `${sessionDir}/${IMAGES_DIR}/${hash}`, source: { file } });
  }
  return files;
}
