/**
 * One of claude's own sessions (never recorded by nudge) as a reader sees it: its transcript cut
 * into turns at its prompts, each turn's lines made entries by the same builder recorded
 * sessions' turns go through (a session of claude's own UI recorded by nudge has exactly these
 * lines). There is no code: no diffs, no snapshots. Every string is inert.
 */
import type { TimedLine } from "../store/conversation-reader.js";
import type { ClaudeSessionCard } from "../claude/claude-session-card.js";
import { readTranscriptLines } from "../claude/transcript-lines.js";
import { transcriptTurns } from "../claude/transcript-turns.js";
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
  };
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
      entries: buildEntries(t.lines, { full: o.full, cwd, repoRoot: o.repoRoot, prompt: t.prompt, live: false }),
    })),
  );
}
