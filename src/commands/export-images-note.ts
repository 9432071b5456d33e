/** What `session export` (archive or page) says about images in prompts: they travel unscanned. */
import type { Turn } from "../store/manifest-schema.js";
import { visible } from "../base/inert-text.js";
import { writeErr } from "../terminal/output.js";
import { promptImageNames } from "../view/prompt-image-names.js";

/**
 * Secret masking reads text; an image (a screenshot of a terminal, a config page) can show a key
 * that no scanner here sees. Said on stderr, so it reaches the user with --json and with -o - too.
 * Only the exported turns count (up to `upto`; turns not saved yet are left out of every export).
 */
export async function noteExportedImages(
  dir: string,
  turns: Pick<Turn, "n" | "input">[],
  upto: number | null,
): Promise<void> {
  const images = (await promptImageNames(dir, turns)).filter(
    (i) => i.turn !== null && (upto === null || i.turn <= upto),
  );
  if (images.length === 0) return;
  const labels = images.map((i) => visible(i.label)).join(" ");
  writeErr(
    `● ${images.length} image${images.length === 1 ? "" : "s"} in the prompts (${labels}) exported as they are: images are not scanned for secrets\n`,
  );
}
