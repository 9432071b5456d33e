/**
 * The reader's views of the sessions in a store, built from the same bundle layer the CLI reads
 * (src/bundle/*): the web server's routes and `session export --html` call these, the page renders
 * what they return. Every string in them went through `inertValue`: a session's control characters
 * (ANSI, bidi overrides) arrive as visible escapes.
 */
import path from "node:path";
import { readInputReduced, readLineSpanReduced, type LinePoint, type TimedLine } from "../store/conversation-reader.js";
import { FIRST_VIEW_LIMITS, FULL_VIEW_LIMITS, type ReduceLimits } from "../store/line-reducer.js";
import { mergeInput } from "../store/input-merge.js";
import type { Manifest, PatchInfo, PendingTurn, Turn } from "../store/manifest-schema.js";
import { listSessions, type StoredSession, type Store } from "../store/store.js";

import { summarize } from "../store/summary.js";
import { turnOf } from "../store/turn-lookup.js";
import { inertValue } from "../base/inert-text.js";
import { pickRange, turnDiff } from "./turn-diff.js";
import { diffView } from "./diff-view.js";
import { storedDiffView } from "./stored-diff.js";
import { resolveSessionKept } from "./manifest-cache.js";
import { buildEntries } from "./entry-builder.js";
import { pendingSummary, turnSummary } from "./turn-summary.js";
import type { DiffView, Entry, SessionListItem, SessionView, TurnView } from "./view-types.js";

/** Every readable session, the one used last first. */
export async function listSessionItems(store: Store): Promise<SessionListItem[]> {
  const sessions = await listSessions(store);
  const children = childrenOf(sessions.map((s) => ({ id: s.header.id, parent: s.header.parent })));
  const items = await Promise.all(
    sessions.map(async (s) => {
      const item = { ...summarize(s), children: children.get(s.header.id) ?? [] };
      // Before its first turn is saved (being recorded, or killed during it) the header has no
      // prompt yet: the journal's turn in flight has it. Only such sessions' journals are read.
      return item.firstPrompt === null ? { ...item, firstPrompt: await promptInFlight(store, s.header.id) } : item;
    }),
  );
  return inertValue(items.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)));
}

/** The prompt of the first turn begun and not saved; null when there is none (or the journal cannot be read). */
async function promptInFlight(store: Store, id: string): Promise<string | null> {
  const s = await resolveSessionKept(store, id).catch(() => null);
  return s?.manifest.unsaved[0]?.prompt ?? null;
}

/** One session's page: its summary and its turns' summaries (not their entries). */
export async function sessionView(store: Store, id: string): Promise<SessionView> {
  const s = await resolveSessionKept(store, id);
  const m = s.manifest;
  const forks = await forksOf(store, m.id);
  const pending = m.unsaved.at(-1) ?? null;
  const summary = summarize({ dir: s.dir, header: m, state: s.state });
  return inertValue({
    session: {
      ...summary,
      firstPrompt: summary.firstPrompt ?? m.unsaved[0]?.prompt ?? null,
      children: forks.map((f) => f.id),
    },
    repo: { root: m.repo.root, branch: m.repo.branch },
    turns: m.turns.map(turnSummary),
    pending: pending && { n: pending.n, prompt: pending.prompt },
  });
}

/** One turn: its entries and diff; `full` leaves long texts uncut. A turn in flight is served from its `begin` record. */
export async function turnView(
  store: Store,
  id: string,
  n: number,
  options: { full?: boolean } = {},
): Promise<TurnView> {
  const s = await resolveSessionKept(store, id);
  const m = s.manifest;
  const full = options.full ?? false;
  const pending = m.turns.some((t) => t.n === n) ? undefined : m.unsaved.find((u) => u.n === n);
  if (pending) return pendingView(s, pending, full);
  const turn = turnOf(m, n);
  const content = await turnContent(s, turn, full);
  return inertValue({
    summary: turnSummary(turn),
    ...content,
    entries: [...content.entries, ...(await marks(store, m, n))],
  });
}

/**
 * A saved turn's whole content, uncut, without the marks a reader sees (rewinds, forks): what the
 * search index reads (src/search), from the same spans and entries the turn's page shows.
 */
export function savedTurnContent(
  s: StoredSession,
  turn: Turn,
): Promise<{ entries: Entry[]; edits: DiffView | null; diff: DiffView }> {
  return turnContent(s, turn, true);
}

/** A saved turn's entries and diffs, from its span of the logs; `full` leaves long texts uncut. */
async function turnContent(
  s: StoredSession,
  turn: Turn,
  full: boolean,
): Promise<{ entries: Entry[]; edits: DiffView | null; diff: DiffView }> {
  const m = s.manifest;
  const span = spanOf(m, { line: turn.lines.from, byte: turn.bytes?.from, input: turn.input?.from }, turn.n);
  const limits = readLimits(full);
  const lines =
    turn.n === 0
      ? []
      : await withInput(
          s.dir,
          await readLineSpanReduced(s.dir, span.from, span.to, { writing: false, limits }),
          span.input,
          turn,
          limits,
        );
  return {
    entries: buildEntries(lines, { full, cwd: m.repo.cwd, repoRoot: m.repo.root, prompt: turn.prompt, live: false }),
    edits: turn.edits ? await storedDiff(s.dir, turn.edits.patch, full) : null,
    diff: await storedDiff(s.dir, turn.patch, full),
  };
}

/** The code change between two turns of a session (from < to), as `session diff --from --to` shows it. */
export async function diffBetween(
  store: Store,
  id: string,
  from: number,
  to: number,
  options: { full?: boolean } = {},
): Promise<DiffView> {
  const m = (await resolveSessionKept(store, id)).manifest;
  const files = await turnDiff(store, m, pickRange(m, undefined, from, to));
  // Bytes that are not UTF-8 came through git's output as replacement characters: shown, never broken.
  const patch = files.map((f) => f.lines.map((l) => `${l}\n`).join("")).join("");
  return inertValue(diffView(patch, options.full ?? false));
}

async function pendingView(s: StoredSession, pending: PendingTurn, full: boolean): Promise<TurnView> {
  const m = s.manifest;
  const writing = s.state === "recording";
  const span = spanOf(m, { line: pending.fromLine, byte: pending.fromByte, input: pending.fromInput }, pending.n);
  const limits = readLimits(full);
  const lines = await withInput(
    s.dir,
    await readLineSpanReduced(s.dir, span.from, span.to, { writing, limits }),
    span.input,
    null,
    limits,
  );
  return inertValue({
    summary: pendingSummary(pending, writing),
    entries: buildEntries(lines, {
      full,
      cwd: m.repo.cwd,
      repoRoot: m.repo.root,
      prompt: pending.prompt,
      live: writing,
    }),
    edits: null,
    diff: { files: [], patch: "", truncated: false },
  });
}

/** How much of a long line a view reads (what is cut is downloaded from the stream, the `whole` of a clipped text). */
function readLimits(full: boolean): ReduceLimits {
  return full ? FULL_VIEW_LIMITS : FIRST_VIEW_LIMITS;
}

type Start = LinePoint & { input?: number };

/**
 * A turn's lines run from its start to where the next turn (saved or begun) starts, or to the end
 * of the file: lines between two turns (an async subagent finishing, claude's notices after its
 * result) belong to the turn before them, so no line is left off every page. The same for what
 * nudge wrote (input.jsonl), when the turns record where that starts.
 */
function spanOf(
  m: Manifest,
  start: Start,
  n: number,
): { from: LinePoint; to: LinePoint | null; input: { from: number; to: number } | null } {
  const later: Start[] = [
    ...m.turns.filter((t) => t.n > n).map((t) => ({ line: t.lines.from, byte: t.bytes?.from, input: t.input?.from })),
    ...m.unsaved.filter((u) => u.n > n).map((u) => ({ line: u.fromLine, byte: u.fromByte, input: u.fromInput })),
  ];
  const next = later.sort((a, b) => a.line - b.line)[0] ?? null;
  const input = start.input === undefined ? null : { from: start.input, to: next?.input ?? Infinity };
  return { from: { line: start.line, byte: start.byte }, to: next && { line: next.line, byte: next.byte }, input };
}

/**
 * Claude's lines with nudge's (the answers to claude's questions) merged in by time. A turn
 * recorded before input ranges were kept takes the input lines written while it ran.
 */
async function withInput(
  dir: string,
  lines: TimedLine[],
  range: { from: number; to: number } | null,
  turn: Turn | null,
  limits: ReduceLimits,
): Promise<TimedLine[]> {
  const input = (await readInputReduced(dir, limits)).filter((l) =>
    range
      ? l.n >= range.from && l.n < range.to
      : turn !== null && l.at !== null && l.at >= Date.parse(turn.startedAt) && l.at <= Date.parse(turn.endedAt),
  );
  const merged = mergeInput(
    [{ turn: null, pending: null, lines }],
    input.map((l) => ({ ...l, input: true as const })),
  );
  return merged[0]?.lines ?? [];
}

/** A turn's stored patch (changes/turn-NNN.patch, or the edits before it); a missing file is an empty diff. */
function storedDiff(dir: string, patch: PatchInfo, full: boolean): Promise<DiffView> {
  // The name was checked against changes/(turn|edits)-NNN.patch when the journal was read.
  return storedDiffView(path.join(dir, patch.file), full);
}

/** What happened to the session at this turn after it was recorded: a rewind to it, forks from it. */
async function marks(store: Store, m: Manifest, n: number): Promise<Entry[]> {
  const out: Entry[] = [];
  if (m.rewoundTo === n)
    out.push({
      kind: "mark",
      text: `/rewind: the session was rewound to turn ${n}; the next run continues from here in a fork`,
    });
  for (const fork of await forksOf(store, m.id)) {
    if (fork.turn === n) out.push({ kind: "mark", text: `/fork: session ${fork.id} was forked from this turn` });
  }
  return out;
}

/** The sessions forked from `id`, and at which turn (each header is small: this reads only those). */
async function forksOf(store: Store, id: string): Promise<Array<{ id: string; turn: number }>> {
  const sessions = await listSessions(store);
  return sessions.flatMap((s) => (s.header.parent?.id === id ? [{ id: s.header.id, turn: s.header.parent.turn }] : []));
}

function childrenOf(sessions: Array<{ id: string; parent: { id: string } | null }>): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const s of sessions) if (s.parent) map.set(s.parent.id, [...(map.get(s.parent.id) ?? []), s.id]);
  return map;
}
