/**
 * `claude --resume <id>` only looks under the current directory's project folder of the local
 * config dir. Before resuming, make sure the transcript is there: claude's own copy from another
 * folder (a worktree fork), or the bundle's copy (an imported session). An existing file is never
 * overwritten.
 */
import path from "node:path";
import { pathExists } from "../file-exists.js";
import { copyFileAtomic, ensureDir } from "../bundle/atomic-write.js";
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
  const source = elsewhere ?? (bundled ? path.join(input.bundleDir, bundled) : null);
  if (!source || !(await pathExists(source))) return null;
  await ensureDir(path.dirname(target));
  await copyFileAtomic(source, target);
  return target;
}
