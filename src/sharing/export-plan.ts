/**
 * What an export of a session holds, computed from its manifest alone (no disk, no git): the
 * turns (all, or 0..N with --upto), where each log is cut, each claude transcript's length at
 * the last exported turn that wrote it, the patches, the commit the code bundle ends at, and the
 * commits it must make sure a clone can reach (the base, the HEADs recorded).
 */
import { UserError } from "../base/errors.js";
import { NoSuchTurn } from "../store/turn-lookup.js";
import type { Manifest, Turn } from "../store/manifest-schema.js";
import { claudeSessionIdOf } from "../store/transcript-name.js";

export interface TranscriptCut {
  /** In the bundle: claude/<id>.jsonl. */
  name: string;
  claudeSessionId: string;
  /** Its length at the last exported turn that wrote it; null: the whole file (an older recording). */
  bytes: number | null;
  /** The exported turns that wrote it, with the length after each (to tell which turn a line belongs to). */
  turns: Array<{ n: number; bytes: number | null }>;
  /** The last exported turn's last assistant line, where that turn ends (export-transcript-end.ts). */
  lastAssistantUuid: string | null;
  /**
   * The export stops before the session's last turn (--upto): the copy must end where its last
   * exported turn ends. The recorded length cannot say where: a turn saved late (a loaded machine,
   * a prompt typed ahead) records a length that already holds the next turn.
   */
  cutShort: boolean;
}

export interface ExportPlan {
  id: string;
  /** Turns 0..N. */
  turns: Turn[];
  /** The --upto turn, null for the whole session. */
  upto: number | null;
  /** conversation.jsonl and timing.txt are cut after this many lines. */
  conversationLines: number;
  /** input.jsonl and input-timing.txt likewise. */
  inputLines: number;
  transcripts: TranscriptCut[];
  /** Every patch file of the exported turns (turn-NNN and edits-NNN). */
  patches: Array<{ file: string; turn: number }>;
  /** The newest exported snapshot: the bundle's one head; every other snapshot is its ancestor. */
  tip: string;
  /** The commits a clone must reach besides the snapshots: the base commit and the HEADs recorded. */
  reach: Array<{ ref: string; commit: string; turn: number | null }>;
  /** The session's time the export is as of (its last update, or turn N's end): it identifies the export with the session id. */
  exportedAt: string;
  /** Where the exported session's next run continues (a rewind's fork point, when inside the export). */
  resume: Manifest["resume"];
  rewoundTo: number | null;
  /** Turns begun but not saved (a live or crashed recording): left out, and said so. */
  leftOut: number;
}

/** The ref names inside the git bundle (only its header sees them; an import maps them to its own). */
export const BUNDLE_TIP = "refs/nudge/export/session";
export const BUNDLE_BASE = "refs/nudge/export/base";
const bundleHeadRef = (turn: number) => `refs/nudge/export/head-${turn}`;

export function planExport(manifest: Manifest, upto: number | null): ExportPlan {
  const last = manifest.turns.at(-1);
  if (!last)
    throw new UserError(
      `session ${manifest.id} has no recorded turns to export`,
      "record at least the starting state: nudge claude run -r " + manifest.id,
    );
  if (upto !== null && !manifest.turns.some((t) => t.n === upto)) {
    throw new NoSuchTurn(
      `session ${manifest.id} has no turn ${upto}`,
      `its turns are 0 to ${last.n}; nudge session show ${manifest.id} lists them`,
    );
  }
  const n = upto ?? last.n;
  const turns = manifest.turns.filter((t) => t.n <= n);
  const end = turns.at(-1)!;
  const patches = turns.flatMap((t) => [
    ...(t.edits ? [{ file: t.edits.patch.file, turn: t.n }] : []),
    { file: t.patch.file, turn: t.n },
  ]);
  const whole = upto === null || upto === last.n;
  // A rewind's fork point survives only if it lies inside the export; otherwise the cut transcript ends where the next run continues.
  const keepsRewind = manifest.rewoundTo !== null && manifest.rewoundTo <= n;
  const resume = whole || keepsRewind ? manifest.resume : null;
  const rewoundTo = keepsRewind ? manifest.rewoundTo : null;
  return {
    id: manifest.id,
    turns,
    upto: whole ? null : n,
    conversationLines: end.lines.to,
    inputLines: turns.reduce((most, t) => Math.max(most, t.input?.to ?? 0), 0),
    transcripts: transcriptCuts(turns, !whole),
    patches,
    tip: end.snapshot.commit,
    reach: reachOf(manifest, turns),
    exportedAt: whole ? manifest.updatedAt : end.endedAt,
    resume,
    rewoundTo,
    leftOut: whole ? manifest.unsaved.length : 0,
  };
}

function transcriptCuts(turns: Turn[], cutShort: boolean): TranscriptCut[] {
  const cuts = new Map<string, TranscriptCut>();
  for (const t of turns) {
    if (!t.transcript) continue;
    const claudeSessionId = claudeSessionIdOf(t.transcript);
    const cut = cuts.get(t.transcript) ?? {
      name: t.transcript,
      claudeSessionId,
      bytes: null,
      turns: [],
      lastAssistantUuid: null,
      cutShort,
    };
    cut.bytes = t.transcriptBytes ?? null; // the last turn that wrote it decides
    cut.lastAssistantUuid = t.lastAssistantUuid;
    cut.turns.push({ n: t.n, bytes: t.transcriptBytes ?? null });
    cuts.set(t.transcript, cut);
  }
  return [...cuts.values()];
}

/** The base commit and each distinct HEAD recorded (Claude may have committed), first turn first. */
function reachOf(manifest: Manifest, turns: Turn[]): ExportPlan["reach"] {
  const reach: ExportPlan["reach"] = [];
  const seen = new Set<string>();
  if (manifest.repo.baseCommit) {
    reach.push({ ref: BUNDLE_BASE, commit: manifest.repo.baseCommit, turn: null });
    seen.add(manifest.repo.baseCommit);
  }
  for (const t of turns) {
    if (!t.head || seen.has(t.head)) continue;
    seen.add(t.head);
    reach.push({ ref: bundleHeadRef(t.n), commit: t.head, turn: t.n });
  }
  return reach;
}

/** The turn a 1-based line of a log belongs to, from the turns' half-open 0-based ranges. */
export function turnOfLine(
  turns: Turn[],
  range: (t: Turn) => { from: number; to: number } | null | undefined,
): (line: number) => number | undefined {
  return (line) =>
    turns.find((t) => {
      const r = range(t);
      return r && line - 1 >= r.from && line - 1 < r.to;
    })?.n;
}
