/**
 * claude's project config in the work tree (.claude/ settings, hooks, commands, agents; .mcp.json)
 * is the work tree's, so writable inside the sandbox, and claude run outside later (`nudge claude
 * run -c`) obeys it: a SessionStart hook or an MCP server written there runs on the host. nudge
 * cannot tell a wanted change from a planted one, so it names every such file the loop changed.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** Files looked at, at most: a folder with more is not a config folder anyone reads by eye. */
const MAX_FILES = 2000;

/** Each project config file under these folders (relative path → its content's hash). */
export function projectConfigFiles(folders: string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const top of new Set(folders)) {
    hashInto(found, path.join(top, ".mcp.json"));
    walk(found, path.join(top, ".claude"), 0);
  }
  return found;
}

/** The project config files added, changed or removed since `before`, sorted. */
export function changedProjectConfig(before: Map<string, string>, folders: string[]): string[] {
  const now = projectConfigFiles(folders);
  const names = new Set([...before.keys(), ...now.keys()]);
  return [...names].filter((n) => before.get(n) !== now.get(n)).sort();
}

function walk(found: Map<string, string>, dir: string, depth: number): void {
  if (depth > 6 || found.size >= MAX_FILES) return;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) walk(found, full, depth + 1);
    else if (e.isFile()) hashInto(found, full);
    else found.set(full, `link or special file`); // a link: changed whenever it appears
  }
}

function hashInto(found: Map<string, string>, file: string): void {
  if (found.size >= MAX_FILES) return;
  try {
    found.set(file, createHash("sha256").update(readFileSync(file)).digest("hex"));
  } catch {
    // absent, a folder, or unreadable: not a config file claude reads either
  }
}
