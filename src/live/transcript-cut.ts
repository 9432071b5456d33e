/**
 * claude's own UI ignores `--resume-session-at` (measured on 2.1.329: the next request held the
 * whole conversation), so a session of its UI resumed at a fork point gets a transcript of its own:
 * claude's, cut after the fork point's message, under a new claude session id (the records' id
 * renamed to match, every other byte kept), placed where `--resume <new id>` finds it.
 */
import { randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { ensureDir, writeFileAtomic } from "../store/atomic-write.js";
import { parseLine, splitLines } from "../claude/ndjson.js";
import { transcriptPath } from "../claude/transcript.js";
import { UserError } from "../base/errors.js";

export async function cutTranscript(
  source: string,
  o: { atUuid: string; claudeSessionId: string; configDir: string; cwd: string },
): Promise<string> {
  const lines = splitLines(await fs.readFile(source));
  const at = lines.findIndex((line) => (parseLine(line) as { uuid?: unknown } | null)?.uuid === o.atUuid);
  if (at === -1)
    throw new UserError(
      `claude's transcript ${source} does not hold the message the session resumes at (${o.atUuid})`,
      "the transcript was changed outside nudge; fork the session at an earlier turn",
    );
  const id = randomUUID();
  const from = Buffer.from(`"sessionId":${JSON.stringify(o.claudeSessionId)}`);
  const to = Buffer.from(`"sessionId":${JSON.stringify(id)}`);
  const kept = lines.slice(0, at + 1).map((line) => Buffer.concat([replaceAll(line, from, to), Buffer.from("\n")]));
  const target = transcriptPath(o.configDir, o.cwd, id);
  await ensureDir(path.dirname(target));
  await writeFileAtomic(target, Buffer.concat(kept), 0o600);
  return id;
}

function replaceAll(line: Buffer, from: Buffer, to: Buffer): Buffer {
  const parts: Buffer[] = [];
  let start = 0;
  for (let at = line.indexOf(from); at !== -1; at = line.indexOf(from, start)) {
    parts.push(line.subarray(start, at), to);
    start = at + from.length;
  }
  parts.push(line.subarray(start));
  return Buffer.concat(parts);
}
