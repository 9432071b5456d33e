/**
 * The single source of truth for a session bundle's manifest. `schemas/manifest.schema.json` is
 * generated from this (npm run schemas) and a test fails when it is stale.
 */
import { z } from "zod";

export const MANIFEST_FORMAT = 1;

const sha = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a git object id");
/**
 * claude's session ids and message uuids end up in file names and argv: a bundle from elsewhere
 * must not be able to smuggle "../" into a path.
 */
const claudeId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "a claude session or message id");
const isoTime = z.string().datetime({ offset: true });

export const SnapshotSchema = z.object({
  commit: sha.describe("snapshot commit (its tree is the work tree after the turn)"),
  tree: sha,
  ref: z.string().describe("hidden ref keeping the commit alive: refs/nudge/<id>/<n>"),
});

export const PatchSchema = z.object({
  file: z.string().regex(/^changes\/turn-\d{3,}\.patch$/).describe("path inside the bundle, e.g. changes/turn-001.patch"),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  filesChanged: z.number().int().nonnegative(),
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  binaryFiles: z.number().int().nonnegative(),
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

export const TurnSchema = z.object({
  n: z.number().int().nonnegative().describe("0 is the starting state"),
  prompt: z.string().nullable(),
  status: TurnStatusSchema,
  startedAt: isoTime,
  endedAt: isoTime,
  lines: z
    .object({ from: z.number().int().nonnegative(), to: z.number().int().nonnegative() })
    .describe("half-open range of line numbers (0-based) in conversation.jsonl"),
  result: ResultSchema.nullable(),
  claudeSessionId: claudeId.nullable(),
  lastAssistantUuid: claudeId.nullable().describe("uuid of the turn's last assistant line: where a fork resumes"),
  head: sha.nullable().describe("the user's HEAD when the turn ended"),
  snapshot: SnapshotSchema,
  patch: PatchSchema.describe("diff from the previous turn's tree (turn 0: from the base commit)"),
  transcript: z
    .string()
    .regex(/^claude\/[A-Za-z0-9_-]{1,128}\.jsonl$/)
    .nullable()
    .describe("copy of claude's own transcript after this turn, inside the bundle"),
});

export const ManifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  id: z.string().regex(/^[0-9a-z]{8,32}$/),
  createdAt: isoTime,
  updatedAt: isoTime,
  state: z.enum(["recording", "complete"]).describe("recording while a nudge process holds the lock; a dead holder means crashed"),
  repo: z.object({
    root: z.string(),
    cwd: z.string(),
    baseCommit: sha.nullable(),
    branch: z.string().nullable(),
  }),
  claude: z.object({
    version: z.string().nullable(),
    model: z.string().nullable(),
  }),
  parent: z.object({ id: z.string().regex(/^[0-9a-z]{8,32}$/), turn: z.number().int().nonnegative() }).nullable(),
  resume: z
    .object({ claudeSessionId: claudeId, atUuid: claudeId.nullable() })
    .nullable()
    .describe("how the next run continues the conversation; set by a rewind or fork to a turn's fork point"),
  rewoundTo: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe("set by a rewind: the next run continues from this turn in an automatic fork, keeping later turns"),
  pendingTurn: z
    .object({ n: z.number().int().positive(), prompt: z.string(), startedAt: isoTime, fromLine: z.number().int().nonnegative() })
    .nullable()
    .describe("the turn in flight, written when it starts so a crash cannot lose its prompt"),
  turns: z.array(TurnSchema),
});

export type Manifest = z.infer<typeof ManifestSchema>;
export type Turn = z.infer<typeof TurnSchema>;
export type TurnResult = z.infer<typeof ResultSchema>;
export type Snapshot = z.infer<typeof SnapshotSchema>;
export type PatchInfo = z.infer<typeof PatchSchema>;
