/**
 * The JSON Schemas published in schemas/, generated from the zod schemas so the two can never
 * disagree (a test fails when the committed files are stale; `npm run schemas` rewrites them).
 */
import { z } from "zod";
import { RulesFileSchema } from "../rules/rules-schema.js";
import { ManifestSchema } from "./manifest-schema.js";

export function jsonSchemas(): Record<string, string> {
  const manifest = {
    $id: "https://nudge.dev/schemas/manifest.schema.json",
    title: "nudge session manifest",
    ...z.toJSONSchema(ManifestSchema, { target: "draft-2020-12" }),
  };
  const rules = {
    $id: "https://nudge.dev/schemas/rules.schema.json",
    title: "nudge rules file (.nudge/rules.yaml)",
    ...z.toJSONSchema(RulesFileSchema, { target: "draft-2020-12" }),
  };
  return {
    "manifest.schema.json": JSON.stringify(manifest, null, 2) + "\n",
    "rules.schema.json": JSON.stringify(rules, null, 2) + "\n",
  };
}
