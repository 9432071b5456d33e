/**
 * The images an export carries (`session/images/<sha256>`, export-images.ts), checked before
 * anything is written: each named by the sha256 of its bytes (the reader has already checked
 * every entry's bytes against the sha256 the index lists, so a name that differs from it is an
 * image altered, or one passed off as another), and no bigger than a line may be once it is put
 * back into its line as base64.
 */
import { IMAGES_DIR, IMAGE_NAME } from "../store/image-store.js";
import type { ExportEntry } from "./export-index.js";
import { DEFAULT_LIMITS, Refusal, formatBytes } from "./limits.js";

/** base64 is 4 bytes for 3: an image is read back inside a line, which `maxLineBytes` bounds. */
const MAX_IMAGE_BYTES = Math.floor((DEFAULT_LIMITS.maxLineBytes / 4) * 3);

/** The image entries, by their names in the bundle (`images/<sha256>`); a bad one refused. */
export function carriedImages(entries: ExportEntry[], sessionDir: string): string[] {
  const prefix = `${sessionDir}/${IMAGES_DIR}/`;
  const images: string[] = [];
  for (const entry of entries) {
    if (!entry.path.startsWith(prefix)) continue;
    const name = entry.path.slice(prefix.length);
    if (!IMAGE_NAME.test(name))
      throw new Refusal(`entry ${entry.path} is not part of a session (an image is named by its sha256)`);
    if (entry.sha256 !== name)
      throw new Refusal(`${entry.path} is not the image its name says (its sha256 is ${entry.sha256.slice(0, 12)}…)`);
    if (entry.bytes > MAX_IMAGE_BYTES)
      throw new Refusal(
        `${entry.path} is an image of ${formatBytes(entry.bytes)}, more than the ${formatBytes(MAX_IMAGE_BYTES)} nudge reads back into a line`,
      );
    images.push(`${IMAGES_DIR}/${name}`);
  }
  return images;
}
