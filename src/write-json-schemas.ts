/** `npm run schemas`: regenerate schemas/*.json from the zod schemas. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { jsonSchemas } from "./json-schemas.js";

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../schemas");
for (const [name, text] of Object.entries(jsonSchemas())) {
  await fs.writeFile(path.join(dir, name), text);
  process.stdout.write(`wrote schemas/${name}\n`);
}
