/**
 * What `nudge web` shows of claude's own sessions (never recorded by nudge): their list, one
 * session's turns and one turn's entries, built by the same view layer `session show` uses
 * (claude-session-view.ts) and masked as every page text is. There is no code: a turn's diff is
 * empty and the page says why. Every string is inert and comes from claude's folder only.
 */
import { stat } from "node:fs/promises";
import { inertValue } from "../base/inert-text.js";
import type { ClaudeSessionCard } from "../claude/claude-session-card.js";
import type { ClaudeSession } from "../live/claude-own-sessions.js";
import { claudeTurnViews, readClaudeTranscript, type ClaudeTranscript } from "./claude-session-view.js";
import { maskStrings } from "./masked-views.js";
import { bareSummary } from "./turn-summary.js";
import type { Entry, TurnSummaryView, TurnView } from "./view-types.js";

/** One row of the page's list of claude's own sessions (the card, less where claude keeps its file). */
export type ClaudeListItem = Omit<ClaudeSessionCard, "file"> & { source: "claude" };

export interface ClaudeSessionView {
  session: ClaudeListItem;
  turns: TurnSummaryView[];
  /** The transcript is larger than what is read of it (its size then). */
  cutAt: number | null;
  /** The command that makes it a nudge session. */
  adopt: string;
}

export async function claudeListItems(sessions: ClaudeSession[]): Promise<ClaudeListItem[]> {
  return maskStrings(inertValue(sessions.map(listItem)));
}

function listItem(s: ClaudeSession): ClaudeListItem {
  const { file: _file, ...rest } = s;
  void _file;
  return { ...rest, source: "claude" };
}

export async function claudeSessionView(s: ClaudeSession, repoRoot: string): Promise<ClaudeSessionView> {
  const transcript = await transcriptOf(s);
  const turns = claudeTurnViews(transcript, s, { full: false, repoRoot });
  return maskStrings(
    inertValue({
      session: listItem(s),
      turns: turns.map((t) => summaryOf(t.n, t.prompt, t.startedAt, t.endedAt, t.entries, s.startedAt)),
      cutAt: transcript.cutAt,
      adopt: `nudge session adopt ${s.id}`,
    }),
  );
}

/** One turn as a recorded turn's view is shaped, with no diff (there is no code to diff). */
export async function claudeTurnView(
  s: ClaudeSession,
  n: number,
  o: { full: boolean; repoRoot: string },
): Promise<TurnView | null> {
  const transcript = await transcriptOf(s);
  const one = transcript.turns.filter((t) => t.n === n);
  const [t] = claudeTurnViews({ ...transcript, turns: one }, s, o);
  if (!t) return null;
  const { summary, entries } = await maskStrings({
    summary: summaryOf(t.n, t.prompt, t.startedAt, t.endedAt, t.entries, s.startedAt),
    entries: t.entries,
  });
  return { summary, entries, edits: null, diff: { files: [], patch: "", truncated: false } };
}

function summaryOf(
  n: number,
  prompt: string | null,
  startedAt: string | null,
  endedAt: string | null,
  entries: Entry[],
  fallback: string,
): TurnSummaryView {
  const errors = entries.some(
    (e) => (e.kind === "notice" && e.level === "error") || (e.kind === "tool" && e.result?.isError),
  );
  const interrupted = entries.some((e) => e.kind === "notice" && e.text === "turn interrupted");
  const start = startedAt ?? fallback;
  const end = endedAt ?? start;
  // claude's transcript keeps a session's cost, not a turn's; and no code was snapshotted.
  return bareSummary({
    n,
    prompt,
    status: interrupted ? "interrupted" : errors ? "error" : "done",
    startedAt: start,
    endedAt: end,
    durationMs: startedAt && endedAt ? Date.parse(endedAt) - Date.parse(startedAt) : null,
  });
}

/**
 * The transcript, read once per version of the file: the page asks for its turns one by one as
 * they near the screen, and each would otherwise read the whole transcript again.
 */
let last: { file: string; size: number; mtimeMs: number; transcript: ClaudeTranscript } | null = null;

async function transcriptOf(s: Pick<ClaudeSessionCard, "file">): Promise<ClaudeTranscript> {
  const now = await stat(s.file);
  if (last && last.file === s.file && last.size === now.size && last.mtimeMs === now.mtimeMs) return last.transcript;
  const transcript = await readClaudeTranscript(s);
  last = { file: s.file, size: now.size, mtimeMs: now.mtimeMs, transcript };
  return transcript;
}
