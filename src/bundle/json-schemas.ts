/**
 * The JSON Schemas published in schemas/, generated from the zod schemas so the two can never
 * disagree (a test fails when the committed files are stale; `npm run schemas` rewrites them).
 */
import { z } from "zod";
import { ExportIndexSchema } from "../sharing/export-index.js";
import { ManifestSchema } from "./manifest-schema.js";

export function jsonSchemas(): Record<string, string> {
  const manifest = {
    $id: "https://nudge.dev/schemas/manifest.schema.json",
    title: "nudge session manifest",
    ...z.toJSONSchema(ManifestSchema, { target: "draft-2020-12" }),
  };
  const exportIndex = {
    $id: "https://nudge.dev/schemas/export.schema.json",
    title: "nudge export index (nudge-export.json, the first entry of an export tarball)",
    ...z.toJSONSchema(ExportIndexSchema, { target: "draft-2020-12" }),
  };
  return {
    "manifest.schema.json": JSON.stringify(manifest, null, 2) + "\n",
    "export.schema.json": JSON.stringify(exportIndex, null, 2) + "\n",
  };
}
