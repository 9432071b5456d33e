/**
 * `claude --resume <id>` only looks under the current directory's project folder of the local
 * config dir. Before resuming, make sure the transcript is there: claude's own copy from another
 * folder (a worktree fork), or the bundle's copy (an imported session). An existing file is never
 * overwritten.
 */
import path from "node:path";
import { pathExists } from "../base/file-exists.js";
import { copyFileAtomic, ensureDir, replaceAtomically } from "../store/atomic-write.js";
import { damaged, findCopy, writePlain } from "../store/transcript-copy.js";
import type { Manifest } from "../store/manifest-schema.js";
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
  const bundled = input.manifest.turns.findLast(
    (t) => t.claudeSessionId === input.claudeSessionId && t.transcript,
  )?.transcript;
  if (elsewhere) {
    await ensureDir(path.dirname(target));
    await copyFileAtomic(elsewhere, target);
    return target;
  }
  // The bundle's copy, compressed or (an old bundle) plain: claude gets its transcript byte for byte.
  const copy = bundled ? await findCopy(input.bundleDir, bundled) : null;
  if (!copy) return null;
  await ensureDir(path.dirname(target));
  // What the session's turns say claude had written: a copy holding less (its last part cut off)
  // would resume claude without those turns, silently.
  const needed = Math.max(
    0,
    ...input.manifest.turns
      .filter((t) => t.claudeSessionId === input.claudeSessionId)
      .map((t) => t.transcriptBytes ?? 0),
  );
  if (copy.compressed) {
    await replaceAtomically(target, async (temp) => {
      const written = await writePlain(copy, temp);
      if (written < needed)
        throw damaged(
          copy.file,
          `it holds ${written} bytes of claude's transcript, and the session's turns need ${needed}`,
        );
    });
  } else await copyFileAtomic(copy.file, target);
  return target;
}
