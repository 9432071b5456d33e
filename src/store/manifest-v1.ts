/**
 * Bundles written before the turn journal (format 1) held every turn inside manifest.json. They
 * are read as they are and converted in memory; a recording that continues one rewrites it in
 * the current format.
 */
import * as z from "../base/zod.js";
import { journalSchemas, type Manifest } from "./manifest-schema.js";
import { summaryOf } from "./summary.js";

const count = z.int().check(z.nonnegative());
const isoTime = z.iso.datetime({ offset: true });
/** Built when a format-1 bundle turns up, not on every start. */
const v1Schema = () =>
  z.object({
    format: z.literal(1),
    id: z.string().check(z.regex(/^[0-9a-z]{8,32}$/)),
    createdAt: isoTime,
    updatedAt: isoTime,
    state: z.enum(["recording", "complete"]),
    repo: z.object({
      root: z.string(),
      cwd: z.string(),
      baseCommit: z.nullable(z.string()),
      branch: z.nullable(z.string()),
    }),
    claude: z.object({ version: z.nullable(z.string()), model: z.nullable(z.string()) }),
    parent: z.nullable(z.object({ id: z.string(), turn: count })),
    resume: z.nullable(z.object({ claudeSessionId: z.string(), atUuid: z.nullable(z.string()) })),
    rewoundTo: z.nullable(count),
    pendingTurn: z.nullable(
      z.object({ n: z.int().check(z.positive()), prompt: z.string(), startedAt: z.string(), fromLine: count }),
    ),
    turns: z.array(journalSchemas().TurnSchema),
  });

/** A format-1 manifest as the current in-memory shape, or null when `json` is not format 1. */
export function fromFormat1(json: unknown): Manifest | null {
  if ((json as { format?: unknown } | null)?.format !== 1) return null;
  const v1 = v1Schema().parse(json);
  const { pendingTurn, turns, ...header } = v1;
  return {
    ...header,
    format: 2,
    parent: header.parent,
    summary: summaryOf(turns),
    turns,
    unsaved: pendingTurn ? [{ ...pendingTurn, ended: null }] : [],
  } as Manifest;
}
