/**
 * The JSON Schemas published in schemas/, generated from the zod schemas so the two can never
 * disagree (a test fails when the committed files are stale; `npm run schemas` rewrites them).
 */
import * as z from "./base/zod.js";
import { journalSchemas, ManifestHeaderSchema } from "./store/manifest-schema.js";
import { RulesFileSchema } from "./rules/rules-schema.js";
import { ExportIndexSchema } from "./sharing/export-index.js";
import { CardSchema } from "./sync/published-card.js";

function schema(name: string, title: string, zodSchema: z.core.$ZodType): [string, string] {
  const json = {
    $id: `https://nudge.dev/schemas/${name}`,
    title,
    ...z.toJSONSchema(zodSchema, { target: "draft-2020-12" }),
  };
  return [name, JSON.stringify(json, null, 2) + "\n"];
}

export function jsonSchemas(): Record<string, string> {
  return Object.fromEntries([
    schema("manifest.schema.json", "nudge session manifest (the bundle's header)", ManifestHeaderSchema),
    schema(
      "turn.schema.json",
      "nudge turn journal record (one line of turns.jsonl)",
      journalSchemas().JournalRecordSchema,
    ),
    schema("rules.schema.json", "nudge rules file (.nudge/rules.yaml)", RulesFileSchema),
    schema(
      "export.schema.json",
      "nudge export index (nudge-export.json, the first entry of an export tarball)",
      ExportIndexSchema,
    ),
    schema(
      "published-card.schema.json",
      "nudge published session card (card.json under refs/nudge/published/<id>/card)",
      CardSchema,
    ),
  ]);
}
