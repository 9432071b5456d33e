/**
 * What of a saved turn is searchable, taken from the entries the session layer builds for a reader
 * (src/view): the prompt, Claude's text, each tool's input and output (subagents' too), the
 * answers and rule decisions, the loop's check, the user's own edits, and the names of the files
 * the turn and those edits changed. Thinking is left out: it is not what the user or Claude said.
 */
import { bundleFiles, type StoredSession } from "../store/store.js";
import { readRange } from "../store/conversation-reader.js";
import type { Turn } from "../store/manifest-schema.js";
import { savedTurnContent } from "../view/session-views.js";
import type { Entry } from "../view/view-types.js";

export type { Place } from "./places.js";
import type { Place } from "./places.js";

export interface TurnDoc {
  place: Place;
  tool: string | null;
  text: string;
  /** Where conversation.jsonl holds the text as a JSON string (bytes): read from there, not stored again. */
  ref?: { offset: number; length: number };
}

/** A piece shorter than this is stored deflated in the index: a reference would save little. */
const REF_MIN_CHARS = 256;

export interface TurnFile {
  path: string;
  place: "turn" | "edits";
}

/** A piece longer than this is indexed up to here: a tool's 50 MB output would otherwise weigh on every search. */
export const MAX_DOC_CHARS = 1_000_000;

/** The searchable pieces of a turn's entries (a recorded turn's, or one of claude's own sessions'). */
export function entryDocs(entries: Entry[], add: (place: Place, tool: string | null, text: string) => void): void {
  for (const e of entries) {
    if (e.kind === "text") add("text", null, e.markdown);
    else if (e.kind === "tool") {
      add("tool-input", e.name, e.input.text);
      if (e.result) add("tool-output", e.name, e.result.content.text);
      entryDocs(e.children, add);
    } else if (e.kind === "question") add("decision", "AskUserQuestion", [...e.questions, ...e.answers].join("\n"));
    else if (e.kind === "permission") add("decision", e.tool, [e.detail, e.answer, e.message ?? ""].join("\n"));
    else if (e.kind === "rule") add("decision", e.tool, [e.rule, e.decision, e.detail, e.message ?? ""].join("\n"));
  }
}

export async function turnDocs(s: StoredSession, turn: Turn): Promise<{ docs: TurnDoc[]; files: TurnFile[] }> {
  const content = await savedTurnContent(s, turn);
  const docs: TurnDoc[] = [];
  const add = (place: Place, tool: string | null, text: string) => {
    if (text.trim() !== "") docs.push({ place, tool, text: text.slice(0, MAX_DOC_CHARS) });
  };
  if (turn.prompt) add("prompt", null, turn.prompt);
  entryDocs(content.entries, add);
  if (turn.check) add("check", null, `${turn.check.command}\n${turn.check.tail}`);
  if (content.edits) add("edits", null, content.edits.patch);
  const files: TurnFile[] = [
    ...content.diff.files.map((f) => ({ path: f.path, place: "turn" as const })),
    ...(content.edits?.files ?? []).map((f) => ({ path: f.path, place: "edits" as const })),
  ];
  const renamed = [...content.diff.files, ...(content.edits?.files ?? [])].flatMap((f) =>
    f.oldPath ? [f.oldPath] : [],
  );
  add("file", null, [...new Set([...files.map((f) => f.path), ...renamed])].join("\n"));
  await findRefs(s, turn, docs);
  return { docs, files };
}

/**
 * Which pieces the turn's lines of conversation.jsonl hold word for word as JSON strings (claude
 * writes them with JSON.stringify, as this looks for them): each gets where, so the index keeps
 * a place to read it from instead of a second copy. A piece built from several (a tool result of
 * blocks) or cut short is not found, and is stored.
 */
async function findRefs(s: StoredSession, turn: Turn, docs: TurnDoc[]): Promise<void> {
  const range = turn.bytes;
  const wanted = docs.filter((d) => d.text.length >= REF_MIN_CHARS && d.text.length < MAX_DOC_CHARS);
  if (!range || range.to <= range.from || wanted.length === 0) return;
  let lines: Buffer;
  try {
    lines = await readRange(bundleFiles(s.dir).conversation, range.from, range.to);
  } catch {
    return;
  }
  for (const d of wanted) {
    const literal = Buffer.from(JSON.stringify(d.text));
    const at = lines.indexOf(literal);
    if (at >= 0) d.ref = { offset: range.from + at, length: literal.length };
  }
}
