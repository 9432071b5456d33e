/**
 * What a listing shows of one of claude's own transcripts, read from its first and last 64 KB
 * (where it ran, when, its first and last prompt, what it cost: claude writes a `cost-state`
 * record at a session's end) and, for a transcript up to COUNTED_BYTES, its turns counted.
 */
import path from "node:path";
import { parseLine } from "./ndjson.js";
import { eachTranscriptLine, readTranscriptRange } from "./transcript-lines.js";
import { promptOf, timeOf } from "./transcript-turns.js";

export interface ClaudeSessionCard {
  /** claude's session id (the transcript's name). */
  id: string;
  file: string;
  /** The working directory its records name, or null when none of the first 64 KB does. */
  cwd: string | null;
  startedAt: string;
  updatedAt: string;
  branch: string | null;
  version: string | null;
  model: string | null;
  /** Prompts typed; null when the transcript is too large to count (COUNTED_BYTES). */
  turns: number | null;
  firstPrompt: string | null;
  lastPrompt: string | null;
  costUsd: number | null;
  durationMs: number | null;
  bytes: number;
}

const EDGE_BYTES = 64 * 1024;
const COUNTED_BYTES = 32 << 20;

export async function readCard(file: string, stat: { size: number; mtimeMs: number }): Promise<ClaudeSessionCard> {
  const id = path.basename(file, ".jsonl");
  const card: ClaudeSessionCard = {
    id,
    file,
    cwd: null,
    startedAt: new Date(stat.mtimeMs).toISOString(),
    updatedAt: new Date(stat.mtimeMs).toISOString(),
    branch: null,
    version: null,
    model: null,
    turns: null,
    firstPrompt: null,
    lastPrompt: null,
    costUsd: null,
    durationMs: null,
    bytes: stat.size,
  };
  let started: number | null = null;
  // A transcript without claude's `last-prompt` record (an older claude, or cut short): its last prompt is the last one found.
  let lastFound: string | null = null;
  const look = (json: unknown, counting: boolean) => {
    if (json === null || typeof json !== "object") return;
    const r = json as Record<string, unknown>;
    const time = timeOf(r);
    if (time !== null && (started === null || time < started)) started = time;
    if (card.cwd === null && typeof r.cwd === "string" && path.isAbsolute(r.cwd) && !r.cwd.includes("\0"))
      card.cwd = r.cwd;
    if (typeof r.gitBranch === "string" && r.gitBranch) card.branch = r.gitBranch;
    if (typeof r.version === "string") card.version = r.version;
    const model = (r.message as { model?: unknown } | undefined)?.model;
    if (r.type === "assistant" && typeof model === "string" && model !== "<synthetic>") card.model = model;
    if (r.type === "cost-state") {
      if (typeof r.totalCostUSD === "number") card.costUsd = r.totalCostUSD;
      if (typeof r.totalDuration === "number") card.durationMs = r.totalDuration;
    }
    if (r.type === "last-prompt" && typeof r.lastPrompt === "string") card.lastPrompt = r.lastPrompt;
    const prompt = promptOf(r);
    if (prompt !== null) {
      card.firstPrompt ??= prompt;
      lastFound = prompt;
      if (counting) card.turns = (card.turns ?? 0) + 1;
    }
  };
  if (stat.size <= COUNTED_BYTES) {
    card.turns = 0;
    // Only records that can say something are parsed: most of a transcript is API bookkeeping.
    await eachTranscriptLine(file, (line) => look(worthParsing(line.bytes) ? parseLine(line.bytes) : null, true), {
      most: COUNTED_BYTES,
    });
  } else {
    for (const json of edgeRecords(await readTranscriptRange(file, 0, EDGE_BYTES), "head")) look(json, false);
    for (const json of edgeRecords(
      await readTranscriptRange(file, Math.max(0, stat.size - EDGE_BYTES), EDGE_BYTES),
      "tail",
    ))
      look(json, false);
  }
  card.lastPrompt ??= lastFound;
  if (started !== null) card.startedAt = new Date(started).toISOString();
  return card;
}

const WORTH = ['"cwd"', '"type":"user"', '"cost-state"', '"last-prompt"', '"type":"assistant"'].map((s) =>
  Buffer.from(s),
);

function worthParsing(line: Buffer): boolean {
  // A long line is a tool's output or a pasted file: its record's kind is told by its first bytes and its last.
  const probe = line.length > 4096 ? Buffer.concat([line.subarray(0, 2048), line.subarray(-2048)]) : line;
  return WORTH.some((w) => probe.includes(w)) && (line.length <= 4096 || line.includes(WORTH[1]!));
}

/** The whole lines of a head or tail read (its cut line at the edge left off). */
function edgeRecords(bytes: Buffer, edge: "head" | "tail"): unknown[] {
  const lines = bytes.toString("utf8").split("\n");
  if (edge === "head" && bytes.length === EDGE_BYTES) lines.pop();
  if (edge === "tail") lines.shift();
  return lines.map((l) => parseLine(Buffer.from(l)));
}
