/**
 * The JSON Schemas published in schemas/, generated from the zod schemas so the two can never
 * disagree (a test fails when the committed files are stale; `npm run schemas` rewrites them).
 */
import { z } from "zod";
import { ManifestSchema } from "./manifest-schema.js";

export function jsonSchemas(): Record<string, string> {
  const manifest = {
    $id: "https://nudge.dev/schemas/manifest.schema.json",
    title: "nudge session manifest",
    ...z.toJSONSchema(ManifestSchema, { target: "draft-2020-12" }),
  };
  return { "manifest.schema.json": JSON.stringify(manifest, null, 2) + "\n" };
}
