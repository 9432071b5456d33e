/**
 * The single source of truth for a session bundle's own files. The JSON Schemas in schemas/ are
 * generated from these (npm run schemas) and a test fails when they are stale.
 *
 * A bundle keeps its bookkeeping constant per turn, however long the session grows:
 * - `manifest.json` is a small header (the session, where it resumes, a summary for `list`),
 *   rewritten atomically when it changes;
 * - `turns.jsonl` is an append-only journal: a `begin` record before claude sees a prompt, an
 *   `ended` record the moment a turn's code is captured, and a `turn` record once it is saved.
 * The reader folds the two into one `Manifest` (the header plus every saved turn).
 */
import { z } from "zod";

/** Bundles written before the journal (version 1) held every turn in manifest.json; they are still read. */
export const MANIFEST_FORMAT = 2;

const sha = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a git object id");
/**
 * claude's session ids and message uuids end up in file names and argv: a bundle from elsewhere
 * must not be able to smuggle "../" into a path.
 */
const claudeId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "a claude session or message id");
const isoTime = z.string().datetime({ offset: true });
const count = z.number().int().nonnegative();
export const sessionId = z.string().regex(/^[0-9a-z]{8,32}$/, "a nudge session id");

export const SnapshotSchema = z.object({
  commit: sha.describe("snapshot commit (its tree is the work tree at that point)"),
  tree: sha,
  ref: z.string().regex(/^refs\/nudge\/[A-Za-z0-9/_.-]+$/).describe("hidden ref keeping the commit alive"),
});

export const PatchSchema = z.object({
  file: z
    .string()
    .regex(/^changes\/(turn|edits)-\d{3,}\.patch$/)
    .describe("path inside the bundle, e.g. changes/turn-001.patch"),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: count,
  filesChanged: count,
  insertions: count,
  deletions: count,
  binaryFiles: count,
  /** Files that left the snapshot because an ignore rule now covers them; they are still on disk. */
  nowIgnored: z.array(z.string()).optional(),
});

export const ResultSchema = z.object({
  subtype: z.string().describe("claude's result subtype: success, error_max_turns, error_during_execution, ..."),
  isError: z.boolean(),
  costUsd: z.number().nullable(),
  durationMs: z.number().nullable(),
  numTurns: z.number().nullable(),
  usage: z.record(z.string(), z.unknown()).nullable(),
});

export const TurnStatusSchema = z.enum(["complete", "interrupted", "incomplete"]).describe(
  "complete: ended with a result; interrupted: the user pressed Ctrl-C and claude ended it; incomplete: claude died first",
);

const LineRange = z.object({ from: count, to: count }).describe("half-open range (0-based)");

export const TurnSchema = z.object({
  n: count.describe("0 is the starting state"),
  prompt: z.string().nullable(),
  status: TurnStatusSchema,
  startedAt: isoTime,
  endedAt: isoTime,
  lines: LineRange.describe("line numbers in conversation.jsonl"),
  bytes: LineRange.optional().describe("byte offsets in conversation.jsonl, so a replay of one turn seeks"),
  input: LineRange.nullable().optional().describe("line numbers in input.jsonl: what nudge wrote to claude during the turn"),
  result: ResultSchema.nullable(),
  claudeSessionId: claudeId.nullable(),
  lastAssistantUuid: claudeId.nullable().describe("uuid of the turn's last assistant line: where a fork resumes"),
  head: sha.nullable().describe("the user's HEAD when the turn ended"),
  snapshot: SnapshotSchema,
  patch: PatchSchema.describe("diff from the state the turn started from (your edits, else the previous turn; turn 0: the base commit)"),
  edits: z
    .object({ snapshot: SnapshotSchema, patch: PatchSchema })
    .nullable()
    .optional()
    .describe("your edits: what changed in the work tree between the previous turn and this turn's prompt"),
  transcript: z
    .string()
    .regex(/^claude\/[A-Za-z0-9_-]{1,128}\.jsonl$/)
    .nullable()
    .describe("copy of claude's own transcript, inside the bundle"),
  transcriptBytes: count.nullable().optional().describe("the transcript's length after this turn (an export cut at this turn keeps that much)"),
  compaction: z
    .object({ preTokens: z.number().nullable(), postTokens: z.number().nullable() })
    .nullable()
    .optional()
    .describe("a /compact turn: claude's context before and after"),
  check: z
    .object({ command: z.string(), exitCode: z.number().int().nullable(), tail: z.string(), durationMs: z.number() })
    .nullable()
    .optional()
    .describe("an agentic loop's --until check, run after the turn"),
});

const SummarySchema = z.object({
  turns: count.describe("turns after the starting state"),
  costUsd: z.number(),
  durationMs: z.number(),
  firstPrompt: z.string().nullable(),
  lastPrompt: z.string().nullable(),
});

export const ManifestHeaderSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  id: sessionId,
  createdAt: isoTime,
  updatedAt: isoTime.describe("the last time the session changed: `claude run -c` continues the one used last"),
  state: z.enum(["recording", "complete"]).describe("recording while a nudge process holds the lock; a dead holder means crashed"),
  repo: z.object({
    root: z.string(),
    cwd: z.string(),
    baseCommit: sha.nullable(),
    branch: z.string().nullable(),
    /** The linked worktree's name (its folder under .git/worktrees), null for the main one: finds the session again after a move. */
    worktree: z.string().nullable().optional(),
  }),
  claude: z.object({ version: z.string().nullable(), model: z.string().nullable() }),
  parent: z.object({ id: sessionId, turn: count }).nullable(),
  resume: z
    .object({ claudeSessionId: claudeId, atUuid: claudeId.nullable() })
    .nullable()
    .describe("how the next run continues the conversation; set by a rewind or fork to a turn's fork point"),
  rewoundTo: count.nullable().describe("set by a rewind: the next run continues from this turn in an automatic fork, keeping later turns"),
  origin: z
    .object({ exportedBy: z.string().nullable(), exportedAt: isoTime, root: z.string(), cwd: z.string(), importedAt: isoTime, sourceId: sessionId })
    .nullable()
    .optional()
    .describe("an imported session: who exported it, from where, when"),
  summary: SummarySchema.describe("what `session list` shows, kept here so it need not read the turns"),
});

/** A turn in flight, written before claude sees its prompt so that no crash can lose it. */
export const BeginRecordSchema = z.object({
  type: z.literal("begin"),
  n: z.number().int().positive(),
  prompt: z.string(),
  startedAt: isoTime,
  fromLine: count,
  fromByte: count.optional(),
  fromInput: count.optional(),
  /** The edits found in the work tree before the prompt, captured as a tree (the turn record completes them). */
  editsTree: sha.nullable().optional(),
});

/** A turn's code captured (the critical moment): the rest of its record can be written later, or by a recovery. */
export const EndedRecordSchema = z.object({
  type: z.literal("ended"),
  n: z.number().int().positive(),
  tree: sha.nullable().describe("null: staged in the session's private index, the tree written after (a recovery writes it from the index)"),
  toLine: count,
  toByte: count.optional(),
  toInput: count.optional(),
  endedAt: isoTime,
});

export const TurnRecordSchema = TurnSchema.extend({ type: z.literal("turn") });

export const JournalRecordSchema = z.discriminatedUnion("type", [BeginRecordSchema, EndedRecordSchema, TurnRecordSchema]);

/** The turn in flight as the rest of nudge sees it (from the journal's last unsaved `begin`). */
export const PendingTurnSchema = BeginRecordSchema.omit({ type: true }).extend({ ended: EndedRecordSchema.omit({ type: true }).nullable() });

export type ManifestHeader = z.infer<typeof ManifestHeaderSchema>;
export type Turn = z.infer<typeof TurnSchema>;
export type TurnResult = z.infer<typeof ResultSchema>;
export type Snapshot = z.infer<typeof SnapshotSchema>;
export type PatchInfo = z.infer<typeof PatchSchema>;
export type BeginRecord = z.infer<typeof BeginRecordSchema>;
export type EndedRecord = z.infer<typeof EndedRecordSchema>;
export type JournalRecord = z.infer<typeof JournalRecordSchema>;
export type PendingTurn = z.infer<typeof PendingTurnSchema>;
export type Summary = z.infer<typeof SummarySchema>;

/**
 * A whole session as the rest of nudge sees it: the header, every saved turn, and the turns begun
 * but not saved (normally none; after a crash, the turn in flight and perhaps the one before it,
 * whose code was captured but whose record was still being written).
 */
export type Manifest = ManifestHeader & { turns: Turn[]; unsaved: PendingTurn[] };
