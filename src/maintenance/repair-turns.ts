/**
 * The turn records a repair writes, from the snapshot chain and the logs: what each turn's commit
 * says (number, prompt, code), where its lines are in conversation.jsonl and input.jsonl (found
 * by its prompt: nudge's own line in input.jsonl, claude's replay of it in conversation.jsonl),
 * and what those lines say (result, cost, claude's session, where a fork resumes). A field
 * nothing tells is given a stand-in and named in the turn's `repaired.unknown`. Pure: no disk.
 */
import type { TimedLine } from "../store/conversation-reader.js";
import { REPAIR_UNKNOWABLE, type PatchInfo, type Turn } from "../store/manifest-schema.js";
import { parseEventLine } from "../claude/ndjson.js";
import { toStreamEvent } from "../claude/stream-events.js";
import { resultSummary, TurnFollower } from "../recorder/turn-follower.js";
import type { ChainTurn } from "./repair-chain.js";

type Unknown = (typeof REPAIR_UNKNOWABLE)[number];

export interface RebuildFacts {
  ref: string;
  baseCommit: string | null;
  /** The turns to rebuild, in order, and the saved turn before the first (null: rebuilding from turn 0). */
  chain: ChainTurn[];
  before: Turn | null;
  patches: Map<string, PatchInfo>;
  conversation: TimedLine[];
  input: TimedLine[];
  /** The transcript copies in the bundle (`claude/<id>.jsonl`), read whole. */
  transcripts: Map<string, Buffer>;
  /** HEAD's moves, newest first (git.headMoves). */
  headMoves: Array<{ commit: string; time: number }>;
  now: string;
}

/** A prompt line: nudge's in input.jsonl, or claude's replay of it in conversation.jsonl. */
interface PromptLine {
  line: number;
  text: string;
  at: number | null;
}

export function rebuildTurns(f: RebuildFacts): Turn[] {
  const sent = promptLines(f.input, f.before?.input?.to ?? 0, (json) => json.type === "user");
  const echoed = promptLines(
    f.conversation,
    f.before?.lines.to ?? 0,
    (json) => json.type === "user" && json.isReplay === true,
  );
  const results = f.conversation.flatMap((l) => (isResult(l) ? [l.n] : []));
  const offsets = lineOffsets(f.conversation);
  let lineCursor = f.before?.lines.to ?? 0;
  let inputCursor = f.before?.input?.to ?? 0;
  let lastTotal = 0;
  const turns: Turn[] = [];
  for (const c of f.chain) {
    const unknown: Unknown[] = [];
    const patch = f.patches.get(patchFile(c.n))!;
    const edits = c.edits
      ? {
          snapshot: { commit: c.edits.commit, tree: c.edits.tree, ref: f.ref },
          patch: f.patches.get(patchFile(c.n, "edits"))!,
        }
      : null;
    const snapshotTime = new Date(c.time * 1000).toISOString();
    const common = {
      n: c.n,
      prompt: c.prompt,
      snapshot: { commit: c.commit, tree: c.tree, ref: f.ref },
      patch,
      edits,
      compaction: null,
    };
    if (c.n === 0) {
      // The starting state: HEAD then was the base commit, and claude had not written a line.
      const at = { from: lineCursor, to: lineCursor };
      turns.push({
        ...common,
        status: "complete",
        startedAt: snapshotTime,
        endedAt: snapshotTime,
        lines: at,
        bytes: { from: offsets[at.from]!, to: offsets[at.to]! },
        input: null,
        result: null,
        claudeSessionId: null,
        lastAssistantUuid: null,
        head: f.baseCommit,
        transcript: null,
        transcriptBytes: null,
        repaired: { at: f.now, unknown: [] },
      });
      continue;
    }
    const prompt = c.prompt ?? "";
    const sentAt = takeMatching(sent, prompt);
    const echoAt = takeMatching(echoed, prompt);
    // The turn's input runs from its prompt to the next prompt sent (the answers to claude's
    // questions in between), as the recorder counts it: what nudge writes to claude between two
    // turns (a new claude process's `initialize`, a mode chosen with Shift-Tab) belongs to neither.
    let input: Turn["input"] = null;
    if (sentAt) {
      let to = sent.find((p) => p.line > sentAt.line)?.line ?? f.input.length;
      while (to > sentAt.line + 1 && isBetweenTurns(f.input[to - 1])) to--;
      input = { from: Math.max(inputCursor, sentAt.line), to };
      inputCursor = input.to;
    } else unknown.push("input");
    // Its lines run from where the last turn's ended to its result, or to the next prompt claude replayed when it has none (claude died).
    let lines = { from: lineCursor, to: lineCursor };
    if (echoAt) {
      const nextEcho = echoed.find((p) => p.line > echoAt.line)?.line ?? f.conversation.length;
      const result = results.find((r) => r > echoAt.line && r < nextEcho);
      lines = { from: lineCursor, to: result !== undefined ? result + 1 : nextEcho };
      lineCursor = lines.to;
    } else unknown.push("lines", "status", "result", "claudeSessionId", "lastAssistantUuid");
    const follower = new TurnFollower();
    for (const l of f.conversation.slice(lines.from, lines.to))
      follower.observe(toStreamEvent(parseEventLine(l.bytes), ""));
    const result = follower.result
      ? resultSummary(follower.result, costBefore(lastTotal, follower.result.total_cost_usd))
      : null;
    lastTotal = follower.result?.total_cost_usd ?? lastTotal;
    const startedAt = sentAt?.at ?? echoAt?.at ?? null;
    if (startedAt === null) unknown.push("startedAt");
    const endedAt = follower.result ? (f.conversation[lines.to - 1]?.at ?? null) : null;
    const head = headAt(f.headMoves, c.time);
    if (head === null) unknown.push("head");
    const transcript =
      follower.claudeSessionId && f.transcripts.has(`claude/${follower.claudeSessionId}.jsonl`)
        ? `claude/${follower.claudeSessionId}.jsonl`
        : null;
    turns.push({
      ...common,
      status: follower.status,
      startedAt:
        startedAt !== null
          ? new Date(startedAt).toISOString()
          : (turns.at(-1)?.endedAt ?? f.before?.endedAt ?? snapshotTime),
      // With no result line to time it, the snapshot's own time (to the second) stands in.
      endedAt: endedAt !== null ? new Date(endedAt).toISOString() : snapshotTime,
      lines,
      bytes: { from: offsets[lines.from]!, to: offsets[lines.to]! },
      input,
      result,
      claudeSessionId: follower.claudeSessionId,
      lastAssistantUuid: follower.lastAssistantUuid,
      head,
      transcript,
      transcriptBytes: null,
      compaction: follower.compaction,
      repaired: { at: f.now, unknown },
    });
  }
  return withTranscriptLengths(turns, f.transcripts);
}

/**
 * How long each transcript copy was after each turn. The last turn that synced a copy left it as
 * long as it is now. An earlier turn's length is gone; what stands in is the end of the turn's
 * last reply in it, which is where an export cut at that turn ends the copy anyway (see
 * sharing/export-transcript-end.ts), so no later turn travels with it.
 */
function withTranscriptLengths(turns: Turn[], transcripts: Map<string, Buffer>): Turn[] {
  const last = new Map(turns.flatMap((t) => (t.transcript ? [[t.transcript, t.n] as const] : [])));
  return turns.map((t) => {
    const copy = t.transcript ? transcripts.get(t.transcript) : undefined;
    const bytes = !copy ? null : last.get(t.transcript!) === t.n ? copy.length : replyEnd(copy, t.lastAssistantUuid);
    const unknown: Unknown[] = [
      ...(t.repaired?.unknown ?? []),
      ...(t.transcript && bytes === null ? ["transcriptBytes" as const] : []),
    ];
    return {
      ...t,
      transcriptBytes: bytes,
      repaired: { at: t.repaired!.at, unknown: REPAIR_UNKNOWABLE.filter((u) => unknown.includes(u)) },
    };
  });
}

/** Where the line holding claude's message `uuid` ends in a transcript, or null when it is not there. */
function replyEnd(transcript: Buffer, uuid: string | null): number | null {
  if (!uuid) return null;
  const at = transcript.indexOf(`"uuid":"${uuid}"`);
  if (at === -1) return null;
  const end = transcript.indexOf(0x0a, at);
  return end === -1 ? transcript.length : end + 1;
}

export function patchFile(n: number, kind: "turn" | "edits" = "turn"): string {
  return `changes/${kind}-${String(n).padStart(3, "0")}.patch`;
}

/** The prompt lines from line `from` on, each taken once, in order. */
/** A request nudge makes of claude on its own account, not within a turn: starting a process, switching modes. */
function isBetweenTurns(line: TimedLine | undefined): boolean {
  const json = line ? (parseEventLine(line.bytes) as { type?: unknown; request?: { subtype?: unknown } } | null) : null;
  return (
    json?.type === "control_request" &&
    (json.request?.subtype === "initialize" || json.request?.subtype === "set_permission_mode")
  );
}

function promptLines(
  lines: TimedLine[],
  from: number,
  isPrompt: (json: { type?: unknown; isReplay?: unknown }) => boolean,
): PromptLine[] {
  const found: PromptLine[] = [];
  for (const l of lines.slice(from)) {
    const json = parseEventLine(l.bytes) as {
      type?: unknown;
      isReplay?: unknown;
      message?: { content?: unknown };
    } | null;
    const text = json && isPrompt(json) ? promptText(json.message?.content) : null;
    if (text !== null) found.push({ line: l.n, text, at: l.at });
  }
  return found;
}

/** A prompt's text: the content as sent, or (a prompt with images) its text blocks. */
function promptText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const texts = content.flatMap((b: { type?: unknown; text?: unknown } | null) =>
    b?.type === "text" && typeof b.text === "string" ? [b.text] : [],
  );
  // Blocks that are all text, or images beside text: a tool's result (no text block of its own) is not a prompt.
  return texts.length > 0 && content.every((b: { type?: unknown } | null) => b?.type === "text" || b?.type === "image")
    ? texts.join("\n")
    : null;
}

/**
 * The first prompt line that carries `prompt`, and every line before it dropped (prompts whose
 * turn was never saved). What nudge sent may begin with its own note ("[nudge] Since this
 * conversation last ran, …") before the prompt itself.
 */
function takeMatching(lines: PromptLine[], prompt: string): PromptLine | null {
  const i = lines.findIndex((p) => p.text === prompt || p.text.endsWith(`\n\n${prompt}`));
  if (i === -1) return null;
  const [found] = lines.splice(0, i + 1).slice(-1);
  return found!;
}

function isResult(l: TimedLine): boolean {
  // Cheap test first: a result line is claude's last of a turn, but parsing every line costs.
  if (!l.bytes.includes('"result"')) return false;
  return (parseEventLine(l.bytes) as { type?: unknown } | null)?.type === "result";
}

/** claude's total cost counts from its process's start: a total below the last one is a new process. */
function costBefore(lastTotal: number, total: number | undefined): number {
  return total !== undefined && total >= lastTotal ? lastTotal : 0;
}

/** Where each line starts in conversation.jsonl, and one past the last: each stored line is its bytes (as stored: images apart) and a "\n". */
function lineOffsets(lines: TimedLine[]): number[] {
  const offsets = [0];
  for (const l of lines) offsets.push(offsets.at(-1)! + (l.stored ?? l.bytes.length) + 1);
  return offsets;
}

/** Where HEAD was at a time (epoch seconds): its last move at or before then, or null when the reflog does not reach back. */
function headAt(moves: Array<{ commit: string; time: number }>, time: number): string | null {
  return moves.find((m) => m.time <= time)?.commit ?? null;
}
