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
import * as z from "../base/zod.js";

/** Bundles written before the journal (version 1) held every turn in manifest.json; they are still read. */
export const MANIFEST_FORMAT = 2;

const sha = z.string().check(z.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a git object id"));
/**
 * claude's session ids and message uuids end up in file names and argv: a bundle from elsewhere
 * must not be able to smuggle "../" into a path.
 */
const claudeId = z.string().check(z.regex(/^[A-Za-z0-9_-]{1,128}$/, "a claude session or message id"));
const isoTime = z.iso.datetime({ offset: true });
const count = z.int().check(z.nonnegative());
const positive = z.int().check(z.positive());
const sessionId = z.string().check(z.regex(/^[0-9a-z]{8,32}$/, "a nudge session id"));
/** The fields of a turn a repair may have to stand in for (see maintenance/repair-plan.ts). */
export const REPAIR_UNKNOWABLE = [
  "status",
  "startedAt",
  "endedAt",
  "lines",
  "input",
  "result",
  "claudeSessionId",
  "lastAssistantUuid",
  "head",
  "transcriptBytes",
] as const;
const described = <T extends z.ZodMiniType>(schema: T, description: string): T => schema.check(z.describe(description));

const SummarySchema = z.object({
  turns: described(count, "turns after the starting state"),
  costUsd: z.number(),
  durationMs: z.number(),
  firstPrompt: z.nullable(z.string()),
  lastPrompt: z.nullable(z.string()),
  unpriced: described(
    z.optional(count),
    "turns whose cost claude did not report (claude's own UI writes none): when it is every turn, the cost is unknown, not 0",
  ),
  sharedWith: described(
    z.optional(z.array(sessionId)),
    "shared work tree: the other sessions named by any turn's `sharedWith` (absent when none)",
  ),
});

export const ManifestHeaderSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  id: sessionId,
  createdAt: isoTime,
  updatedAt: described(isoTime, "the last time the session changed: `claude run -c` continues the one used last"),
  state: described(
    z.enum(["recording", "complete"]),
    "recording while a nudge process holds the lock; a dead holder means crashed",
  ),
  repo: z.object({
    root: z.string(),
    cwd: z.string(),
    baseCommit: z.nullable(sha),
    branch: z.nullable(z.string()),
    /** The linked worktree's name (its folder under .git/worktrees), null for the main one: finds the session again after a move. */
    worktree: z.optional(z.nullable(z.string())),
  }),
  claude: z.object({ version: z.nullable(z.string()), model: z.nullable(z.string()) }),
  parent: z.nullable(z.object({ id: sessionId, turn: count })),
  resume: described(
    z.nullable(z.object({ claudeSessionId: claudeId, atUuid: z.nullable(claudeId) })),
    "how the next run continues the conversation; set by a rewind or fork to a turn's fork point",
  ),
  rewoundTo: described(
    z.nullable(count),
    "set by a rewind: the next run continues from this turn in an automatic fork, keeping later turns",
  ),
  origin: described(
    z.optional(
      z.nullable(
        z.object({
          exportedBy: z.nullable(z.string()),
          exportedAt: described(
            isoTime,
            "the session's time the export is as of (with sourceId, it tells the same export imported again)",
          ),
          writtenAt: described(z.optional(isoTime), "when the export was written; absent for exports of older nudges"),
          root: z.string(),
          cwd: z.string(),
          importedAt: isoTime,
          sourceId: sessionId,
        }),
      ),
    ),
    "an imported session: who exported it, from where, when",
  ),
  repairedAt: described(
    z.optional(z.nullable(isoTime)),
    "when `nudge session repair` last rebuilt turns of turns.jsonl from the snapshots and logs",
  ),
  adopted: described(
    z.optional(z.nullable(z.object({ claudeSessionId: claudeId, at: isoTime, turns: count }))),
    "made from claude's own session (`nudge session adopt`): its first `turns` turns hold that conversation, their code not recorded (each is the work tree as it was at `at`)",
  ),
  summary: described(SummarySchema, "what `session list` shows, kept here so it need not read the turns"),
});

/**
 * The turn and journal schemas, built on first use and then kept: `session list` reads only
 * headers, and building these ~40 schemas was a good part of a quick command's start-up.
 */
export function journalSchemas() {
  return (built ??= buildJournalSchemas());
}
let built: ReturnType<typeof buildJournalSchemas> | undefined;

function buildJournalSchemas() {
  const SnapshotSchema = z.object({
    commit: described(sha, "snapshot commit (its tree is the work tree at that point)"),
    tree: sha,
    ref: described(z.string().check(z.regex(/^refs\/nudge\/[A-Za-z0-9/_.-]+$/)), "hidden ref keeping the commit alive"),
  });

  const PatchSchema = z.object({
    file: described(
      z.string().check(z.regex(/^changes\/(turn|edits)-\d{3,}\.patch$/)),
      "path inside the bundle, e.g. changes/turn-001.patch",
    ),
    sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    bytes: count,
    filesChanged: count,
    insertions: count,
    deletions: count,
    binaryFiles: count,
    /** Files that left the snapshot because an ignore rule now covers them; they are still on disk. */
    nowIgnored: z.optional(z.array(z.string())),
  });

  const ResultSchema = z.object({
    subtype: described(z.string(), "claude's result subtype: success, error_max_turns, error_during_execution, ..."),
    isError: z.boolean(),
    costUsd: z.nullable(z.number()),
    durationMs: z.nullable(z.number()),
    numTurns: z.nullable(z.number()),
    usage: z.nullable(z.record(z.string(), z.unknown())),
  });

  const TokensSchema = z.object({ input: count, output: count, cacheRead: count, cacheWrite: count });

  const TurnStatusSchema = described(
    z.enum(["complete", "interrupted", "incomplete"]),
    "complete: ended with a result; interrupted: the user pressed Ctrl-C and claude ended it; incomplete: claude died first",
  );

  const LineRange = described(z.object({ from: count, to: count }), "half-open range (0-based)");

  const TurnSchema = z.object({
    n: described(count, "0 is the starting state"),
    prompt: z.nullable(z.string()),
    status: TurnStatusSchema,
    startedAt: isoTime,
    endedAt: isoTime,
    lines: described(LineRange, "line numbers in conversation.jsonl"),
    bytes: described(z.optional(LineRange), "byte offsets in conversation.jsonl, so a replay of one turn seeks"),
    input: described(
      z.optional(z.nullable(LineRange)),
      "line numbers in input.jsonl: what nudge wrote to claude during the turn",
    ),
    result: z.nullable(ResultSchema),
    claudeSessionId: z.nullable(claudeId),
    lastAssistantUuid: described(z.nullable(claudeId), "uuid of the turn's last assistant line: where a fork resumes"),
    head: described(z.nullable(sha), "the user's HEAD when the turn ended"),
    snapshot: SnapshotSchema,
    patch: described(
      PatchSchema,
      "diff from the state the turn started from (your edits, else the previous turn; turn 0: the base commit)",
    ),
    edits: described(
      z.optional(z.nullable(z.object({ snapshot: SnapshotSchema, patch: PatchSchema }))),
      "your edits: what changed in the work tree between the previous turn and this turn's prompt",
    ),
    transcript: described(
      z.nullable(z.string().check(z.regex(/^claude\/[A-Za-z0-9_-]{1,128}\.jsonl$/))),
      "copy of claude's own transcript, inside the bundle",
    ),
    transcriptBytes: described(
      z.optional(z.nullable(count)),
      "the transcript's length after this turn (an export cut at this turn keeps that much)",
    ),
    tokens: described(
      z.optional(z.nullable(TokensSchema)),
      "a turn with no result line (claude's own UI): the tokens its API messages used, from claude's transcript; claude writes no per-turn cost there",
    ),
    compaction: described(
      z.optional(
        z.nullable(
          z.object({
            preTokens: z.nullable(z.number()),
            postTokens: z.nullable(z.number()),
            trigger: z.optional(z.nullable(z.enum(["manual", "auto"]))),
          }),
        ),
      ),
      "claude compacted its context during the turn (a /compact turn, or claude's own UI's /compact or auto-compaction before or within it): its context before and after, and what started it",
    ),
    check: described(
      z.optional(
        z.nullable(
          z.object({ command: z.string(), exitCode: z.nullable(z.int()), tail: z.string(), durationMs: z.number() }),
        ),
      ),
      "an agentic loop's --until check, run after the turn",
    ),
    loop: described(
      z.optional(
        z.nullable(
          z.object({
            role: described(
              z.enum(["iteration", "verifier"]),
              "a loop iteration, or the verifier's check of the work (read-only tools)",
            ),
            iteration: described(count, "the loop's iteration number (for a verifier: the iteration it checked)"),
            fresh: described(z.boolean(), "run as a new claude conversation (--fresh, and every verifier)"),
            model: described(z.nullable(z.string()), "the model claude ran with (null: claude's default)"),
            promise: described(z.optional(z.nullable(z.string())), "the <promise> claude's last message made, if any"),
            verdict: described(
              z.optional(z.nullable(z.object({ pass: z.boolean(), reason: z.nullable(z.string()) }))),
              "a verifier's answer (no sigil counts as a fail)",
            ),
            log: described(
              z.optional(z.nullable(z.string().check(z.regex(/^iterations\/turn-\d{3,}\.ndjson$/)))),
              "the turn's raw NDJSON, inside the bundle",
            ),
          }),
        ),
      ),
      "a `claude loop` turn: which iteration, which model, what claude promised, what the verifier said",
    ),
    sharedWith: described(
      z.optional(z.array(sessionId)),
      "shared work tree: other sessions that had a turn running in the same work tree while this turn ran (claude run --force, two claudes recorded through installed hooks); the turn's changes may include theirs",
    ),
    repaired: described(
      z.optional(z.object({ at: isoTime, unknown: z.array(z.enum(REPAIR_UNKNOWABLE)) })),
      "rebuilt by `nudge session repair` from the snapshots and logs after turns.jsonl was lost; `unknown` names the fields it could not recover (their values are stand-ins)",
    ),
  });

  /** A turn in flight, written before claude sees its prompt so that no crash can lose it. */
  const BeginRecordSchema = z.object({
    type: z.literal("begin"),
    n: positive,
    prompt: z.string(),
    startedAt: isoTime,
    fromLine: count,
    fromByte: z.optional(count),
    fromInput: z.optional(count),
    /** The edits found in the work tree before the prompt, captured as a tree (the turn record completes them). */
    editsTree: z.optional(z.nullable(sha)),
    /** The edits are being captured while the prompt goes to claude: an `edits` record follows with their tree. */
    editsPending: described(
      z.optional(z.literal(true)),
      "the user's edits are captured while the prompt goes; their tree follows in an `edits` record, written before any tool of claude's may run",
    ),
  });

  /** The user's edits before a turn, captured while its prompt went to claude (see `editsPending`). */
  const EditsRecordSchema = z.object({
    type: z.literal("edits"),
    n: positive,
    tree: described(
      z.nullable(sha),
      "the work tree as the user left it before the prompt; null: unchanged since the last capture",
    ),
  });

  /** A turn's code captured (the critical moment): the rest of its record can be written later, or by a recovery. */
  const EndedRecordSchema = z.object({
    type: z.literal("ended"),
    n: positive,
    tree: described(
      z.nullable(sha),
      "null: staged in the session's private index, the tree written after (a recovery writes it from the index)",
    ),
    toLine: count,
    toByte: z.optional(count),
    toInput: z.optional(count),
    endedAt: isoTime,
  });

  const TurnRecordSchema = z.extend(TurnSchema, { type: z.literal("turn") });

  const JournalRecordSchema = z.discriminatedUnion("type", [
    BeginRecordSchema,
    EditsRecordSchema,
    EndedRecordSchema,
    TurnRecordSchema,
  ]);

  /** The turn in flight as the rest of nudge sees it (from the journal's last unsaved `begin`). */
  const PendingTurnSchema = z.extend(z.omit(BeginRecordSchema, { type: true }), {
    ended: z.nullable(z.omit(EndedRecordSchema, { type: true })),
  });

  return {
    SnapshotSchema,
    PatchSchema,
    ResultSchema,
    TokensSchema,
    TurnStatusSchema,
    TurnSchema,
    BeginRecordSchema,
    EditsRecordSchema,
    EndedRecordSchema,
    TurnRecordSchema,
    JournalRecordSchema,
    PendingTurnSchema,
  };
}

export type ManifestHeader = z.infer<typeof ManifestHeaderSchema>;
type JournalSchemas = ReturnType<typeof journalSchemas>;
export type Turn = z.infer<JournalSchemas["TurnSchema"]>;
export type TurnResult = z.infer<JournalSchemas["ResultSchema"]>;
export type TurnTokens = z.infer<JournalSchemas["TokensSchema"]>;
export type Snapshot = z.infer<JournalSchemas["SnapshotSchema"]>;
export type PatchInfo = z.infer<JournalSchemas["PatchSchema"]>;
export type EndedRecord = z.infer<JournalSchemas["EndedRecordSchema"]>;
export type JournalRecord = z.infer<JournalSchemas["JournalRecordSchema"]>;
export type PendingTurn = z.infer<JournalSchemas["PendingTurnSchema"]>;
export type Summary = z.infer<typeof SummarySchema>;

/**
 * A turn's steps in the order they happened, each a patch and the snapshot it leads to: the
 * user's edits found before its prompt (when there were any), then the turn itself.
 */
export function turnSteps(t: Turn): Array<{ patch: PatchInfo; snapshot: Snapshot }> {
  return [...(t.edits ? [t.edits] : []), t];
}

/**
 * A whole session as the rest of nudge sees it: the header, every saved turn, and the turns begun
 * but not saved (normally none; after a crash, the turn in flight and perhaps the one before it,
 * whose code was captured but whose record was still being written).
 */
export type Manifest = ManifestHeader & { turns: Turn[]; unsaved: PendingTurn[] };
