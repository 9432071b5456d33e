/**
 * Bundles written before the turn journal (format 1) held every turn inside manifest.json. They
 * are read as they are and converted in memory; a recording that continues one rewrites it in
 * the current format.
 */
import { z } from "zod";
import { TurnSchema, type Manifest } from "./manifest-schema.js";
import { summaryOf } from "./summary.js";

const V1Schema = z.object({
  format: z.literal(1),
  id: z.string().regex(/^[0-9a-z]{8,32}$/),
  createdAt: z.string().datetime({ offset: true }),
  updatedAt: z.string().datetime({ offset: true }),
  state: z.enum(["recording", "complete"]),
  repo: z.object({ root: z.string(), cwd: z.string(), baseCommit: z.string().nullable(), branch: z.string().nullable() }),
  claude: z.object({ version: z.string().nullable(), model: z.string().nullable() }),
  parent: z.object({ id: z.string(), turn: z.number().int().nonnegative() }).nullable(),
  resume: z.object({ claudeSessionId: z.string(), atUuid: z.string().nullable() }).nullable(),
  rewoundTo: z.number().int().nonnegative().nullable(),
  pendingTurn: z.object({ n: z.number().int().positive(), prompt: z.string(), startedAt: z.string(), fromLine: z.number().int().nonnegative() }).nullable(),
  turns: z.array(TurnSchema),
});

/** A format-1 manifest as the current in-memory shape, or null when `json` is not format 1. */
export function fromFormat1(json: unknown): Manifest | null {
  if ((json as { format?: unknown } | null)?.format !== 1) return null;
  const v1 = V1Schema.parse(json);
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
