/**
 * `claude --resume <id>` only looks under the current directory's project folder of the local
 * config dir. Before resuming, make sure the transcript is there: claude's own copy from another
 * folder (a worktree fork), or the bundle's copy (an imported session). An existing file is never
 * overwritten.
 */
import path from "node:path";
import { pathExists } from "../file-exists.js";
import { copyFileAtomic, ensureDir, replaceAtomically } from "../bundle/atomic-write.js";
import { findCopy, writePlain } from "../bundle/transcript-copy.js";
import type { Manifest } from "../bundle/manifest-schema.js";
import { findTranscript, transcriptPath } from "../claude/transcript.js";

export interface PlacementInput {
  bundleDir: string;
  manifest: Manifest;
  claudeSessionId: string;
  claudeConfigDir: string;
  cwd: string;
}

/** Returns where the transcript now is, or null when no copy exists anywhere. */
export async function ensureTranscriptPlaced(input: PlacementInput): Promise<string | null> {
  const target = transcriptPath(input.claudeConfigDir, input.cwd, input.claudeSessionId);
  if (await pathExists(target)) return target;
  const elsewhere = await findTranscript(input.claudeConfigDir, input.cwd, input.claudeSessionId);
  const bundled = input.manifest.turns.findLast((t) => t.claudeSessionId === input.claudeSessionId && t.transcript)?.transcript;
  if (elsewhere) {
    await ensureDir(path.dirname(target));
    await copyFileAtomic(elsewhere, target);
    return target;
  }
  // The bundle's copy, compressed or (an old bundle) plain: claude gets its transcript byte for byte.
  const copy = bundled ? await findCopy(input.bundleDir, bundled) : null;
  if (!copy) return null;
  await ensureDir(path.dirname(target));
  if (copy.compressed) await replaceAtomically(target, async (temp) => void (await writePlain(copy, temp)));
  else await copyFileAtomic(copy.file, target);
  return target;
}
