import { readFileSync } from "node:fs";

/**
 * nudge's own version, from its package.json. The same code runs from dist/cli.js, from the
 * bundle's chunks in dist/chunks/ and from src/ under tsx, so it looks one and two folders up.
 */
export function nudgeVersion(): string {
  for (const up of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === "nudge" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // not there: try the next folder up
    }
  }
  return "unknown";
}
