/**
 * What each snapshot commit's message says, written and read in one place: the message is how a
 * snapshot chain tells its turns apart when the journal that names them is gone (`session
 * repair`, and the check a recording makes before it moves a session's ref).
 */
export type SnapshotKind =
  { kind: "start"; n: 0 } | { kind: "turn"; n: number; prompt: string } | { kind: "edits"; n: number };

export const startMessage = (id: string) => `nudge ${id} turn 0 (starting state)`;
export const turnMessage = (id: string, n: number, prompt: string) => `nudge ${id} turn ${n}\n\n${prompt}`;
export const editsMessage = (id: string, n: number) => `nudge ${id} your edits before turn ${n}`;

// The id may be another session's: a fork shares its parent's commits, an import keeps the exporter's.
const ID = "[0-9a-z]{8,32}";
const START = new RegExp(`^nudge ${ID} turn 0 \\(starting state\\)\\n?$`);
const TURN = new RegExp(`^nudge ${ID} turn ([1-9]\\d{0,8})\\n\\n([\\s\\S]*)$`);
const EDITS = new RegExp(`^nudge ${ID} your edits before turn ([1-9]\\d{0,8})\\n?$`);

/** What a commit message says the commit is, or null for a commit that is not a snapshot. */
export function parseSnapshotMessage(message: string): SnapshotKind | null {
  if (START.test(message)) return { kind: "start", n: 0 };
  const turn = TURN.exec(message);
  if (turn) return { kind: "turn", n: Number(turn[1]), prompt: turn[2]! };
  const edits = EDITS.exec(message);
  return edits ? { kind: "edits", n: Number(edits[1]) } : null;
}
