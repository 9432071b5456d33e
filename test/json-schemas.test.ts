import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { jsonSchemas } from "../src/json-schemas.js";

const schemasDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../schemas");

describe("schemas/", () => {
  it.each(Object.entries(jsonSchemas()))(
    "%s is generated from the zod schema (run `npm run schemas` if this fails)",
    (name, text) => {
      expect(readFileSync(path.join(schemasDir, name), "utf8")).toBe(text);
    },
  );

  it("holds exactly the generated schemas: the bundle's and the rules file's", () => {
    expect(readdirSync(schemasDir).sort()).toEqual(Object.keys(jsonSchemas()).sort());
    expect(Object.keys(jsonSchemas())).toContain("rules.schema.json");
  });
});
