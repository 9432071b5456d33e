/** A rewind record as nudge writes one (rewinds/<stamp>.json), for tests of what reads them. */
import type { RewindRecord } from "../../src/time-travel/rewind-log.js";

const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** Record `i` (its stamp and time ordered by `i`) of a rewind in `root`; `change` sets any other field. */
export function rewindRecord(root: string, i: number, change: Partial<RewindRecord> = {}): RewindRecord {
  return {
    stamp: `20261128-0700${String(i).padStart(4, "0")}-1`,
    at: new Date(Date.UTC(2026, 10, 28, 7, 0, i)).toISOString(),
    kind: "rewind",
    sessionId: "abc",
    turn: 1,
    root,
    scope: "both",
    backup: { commit: null, tree: EMPTY_TREE, ref: `refs/nudge/backup/${i}` },
    before: { head: null, branch: null, rewoundTo: null, indexCopy: null },
    after: { tree: EMPTY_TREE, head: null },
    hidden: [],
    undoes: null,
    fork: null,
    forking: false,
    undoesFork: false,
    status: "applied",
    owner: null,
    ...change,
  };
}
