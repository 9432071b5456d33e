/**
 * One of claude's own sessions (never recorded by nudge) as a reader sees it: its transcript cut
 * into turns at its prompts, each turn's lines made entries by the same builder recorded
 * sessions' turns go through (a session of claude's own UI recorded by nudge has exactly these
 * lines). There is no code: no diffs, no snapshots. Every string is inert.
 */
import type { TimedLine } from "../store/conversation-reader.js";
import type { ClaudeSessionCard } from "../claude/claude-session-card.js";
import { readTranscriptLines } from "../claude/transcript-lines.js";
import { timeOf, transcriptTurns } from "../claude/transcript-turns.js";
import { parseEventLine } from "../claude/ndjson.js";
import { constants } from "node:fs";
import { lstat, open, readdir } from "node:fs/promises";
import path from "node:path";
import { inertValue } from "../base/inert-text.js";
import { buildEntries } from "./entry-builder.js";
import type { Entry } from "./view-types.js";

interface ClaudeTurnLines {
  n: number;
  prompt: string | null;
  startedAt: string | null;
  endedAt: string | null;
  lines: TimedLine[];
}

export interface ClaudeTranscript {
  turns: ClaudeTurnLines[];
  /** Subagents' transcripts from claude's side folder, by the tool call that ran each. */
  subagents: Map<string, TimedLine[]>;
  /** The transcript is larger than what is read of it (its size then). */
  cutAt: number | null;
}

export async function readClaudeTranscript(card: Pick<ClaudeSessionCard, "file">): Promise<ClaudeTranscript> {
  const read = await readTranscriptLines(card.file);
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    turns: transcriptTurns(read.lines).map((t) => ({
      n: t.n,
      prompt: t.prompt,
      startedAt: iso(t.startedAt),
      endedAt: iso(t.endedAt),
      lines: t.lines.map((l, i) => ({ n: i, bytes: l.bytes, at: l.time })),
    })),
    cutAt: read.cut ? read.size : null,
    subagents: await readSubagents(card.file),
  };
}

/** More subagents than this in one session are not read (a session with that many is shown without the rest). */
const MOST_SUBAGENTS = 500;

/**
 * `<id>/subagents/agent-<agent>.jsonl`, each named to its tool call by its `.meta.json`
 * (`toolUseId`). Folders that are links are not followed; each file is read bounded, as the
 * transcript is; what is missing or damaged is left out.
 */
async function readSubagents(file: string): Promise<Map<string, TimedLine[]>> {
  const out = new Map<string, TimedLine[]>();
  const side = path.join(path.dirname(file), path.basename(file, ".jsonl"));
  const dir = path.join(side, "subagents");
  const real = async (d: string) => (await lstat(d).catch(() => null))?.isDirectory() === true;
  if (!(await real(side)) || !(await real(dir))) return out;
  const metas = (await readdir(dir).catch(() => [] as string[])).filter((n) =>
    /^agent-[\w-]{1,128}\.meta\.json$/.test(n),
  );
  for (const meta of metas.slice(0, MOST_SUBAGENTS)) {
    const toolUseId = await toolUseOf(path.join(dir, meta));
    if (!toolUseId) continue;
    const read = await readTranscriptLines(path.join(dir, meta.replace(/\.meta\.json$/, ".jsonl"))).catch(() => null);
    if (read)
      out.set(
        toolUseId,
        read.lines.map((l, i) => ({ n: i, bytes: l.bytes, at: timeOf(parseEventLine(l.bytes)) })),
      );
  }
  return out;
}

async function toolUseOf(metaFile: string): Promise<string | null> {
  const handle = await open(metaFile, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  if (!handle) return null;
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const id = (JSON.parse(buffer.subarray(0, bytesRead).toString("utf8")) as { toolUseId?: unknown }).toolUseId;
    return typeof id === "string" && /^[\w-]{1,128}$/.test(id) ? id : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

export interface ClaudeTurnView {
  n: number;
  prompt: string | null;
  startedAt: string | null;
  endedAt: string | null;
  entries: Entry[];
}

/** Each turn's entries (`full`: long texts uncut), as a recorded turn's page has them. */
export function claudeTurnViews(
  transcript: ClaudeTranscript,
  card: Pick<ClaudeSessionCard, "cwd">,
  o: { full: boolean; repoRoot: string },
): ClaudeTurnView[] {
  const cwd = card.cwd ?? o.repoRoot;
  return inertValue(
    transcript.turns.map((t) => ({
      n: t.n,
      prompt: t.prompt,
      startedAt: t.startedAt,
      endedAt: t.endedAt,
      entries: buildEntries(t.lines, {
        full: o.full,
        cwd,
        repoRoot: o.repoRoot,
        prompt: t.prompt,
        live: false,
        subagents: transcript.subagents,
      }),
    })),
  );
}
