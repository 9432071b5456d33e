/**
 * A loop's raw NDJSON per iteration: the lines claude wrote during the turn, copied byte for
 * byte from the bundle's conversation.jsonl into `iterations/turn-NNN.ndjson` (images stored apart
 * put back in, so each line reads as claude wrote it), so a long loop's
 * iterations can be read (grep, jq) one by one. They are copies, kept in this bundle only (an
 * export carries conversation.jsonl, from which they are made again).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Turn } from "../store/manifest-schema.js";
import { writeFileAtomic } from "../store/atomic-write.js";
import type { BundleFiles } from "../store/store.js";
import { expandImages, hasImageRefs } from "../store/image-store.js";
import { readStream } from "../store/conversation-pieces.js";

/** The log's path inside the bundle; null when the turn has no byte range (an older bundle). */
export async function writeIterationLog(files: BundleFiles, turn: Turn): Promise<string | null> {
  if (!turn.bytes) return null;
  const { from, to } = turn.bytes;
  const name = `turn-${String(turn.n).padStart(3, "0")}.ndjson`;
  const bytes = await readStream(files.dir, from, to);
  await fs.mkdir(files.iterations, { recursive: true });
  await writeFileAtomic(path.join(files.iterations, name), await withImages(files.dir, bytes));
  return `iterations/${name}`;
}

/** The lines with their stored images put back (most turns have none: the bytes as they are). */
async function withImages(dir: string, bytes: Buffer): Promise<Buffer> {
  if (!hasImageRefs(bytes)) return bytes;
  const cache = new Map<string, string | null>();
  const lines: Buffer[] = [];
  let start = 0;
  for (let end = bytes.indexOf(0x0a); end !== -1; start = end + 1, end = bytes.indexOf(0x0a, start))
    lines.push(await expandImages(dir, bytes.subarray(start, end + 1), cache));
  if (start < bytes.length) lines.push(await expandImages(dir, bytes.subarray(start), cache));
  return Buffer.concat(lines);
}
