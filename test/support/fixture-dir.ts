/** A fixture folder (fixtures/<area>/<case>) copied into a temp dir, so a test can never change the original. */
import { cpSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "./gitdir.js";

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures");

/** Copy fixtures/<area>/<name> into `into` (a fresh temp dir unless given); returns that dir. */
export function copyFixture(area: string, name: string, into = tempDir()): string {
  cpSync(path.join(FIXTURES, area, name), into, { recursive: true });
  return into;
}
