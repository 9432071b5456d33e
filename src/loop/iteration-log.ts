/**
 * A loop's raw NDJSON per iteration: the lines claude wrote during the turn, copied byte for
 * byte from the bundle's conversation.jsonl into `iterations/turn-NNN.ndjson`, so a long loop's
 * iterations can be read (grep, jq) one by one. They are copies, kept in this bundle only (an
 * export carries conversation.jsonl, from which they are made again).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Turn } from "../bundle/manifest-schema.js";
import { writeFileAtomic } from "../bundle/atomic-write.js";
import type { BundleFiles } from "../bundle/store.js";

/** The log's path inside the bundle; null when the turn has no byte range (an older bundle). */
export async function writeIterationLog(files: BundleFiles, turn: Turn): Promise<string | null> {
  if (!turn.bytes) return null;
  const { from, to } = turn.bytes;
  const name = `turn-${String(turn.n).padStart(3, "0")}.ndjson`;
  const handle = await fs.open(files.conversation, "r");
  try {
    const bytes = Buffer.alloc(to - from);
    for (let done = 0; done < bytes.length; ) {
      const { bytesRead } = await handle.read(bytes, done, bytes.length - done, from + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    await fs.mkdir(files.iterations, { recursive: true });
    await writeFileAtomic(path.join(files.iterations, name), bytes);
  } finally {
    await handle.close();
  }
  return `iterations/${name}`;
}
