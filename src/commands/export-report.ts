/** How `session export` (tarball or HTML) tells what it found and where it wrote. */
import path from "node:path";
import type { SecretSummary } from "../sharing/secrets.js";

/** By kind: how many, in which turns, in which files (by name). */
export function describeSecrets(found: SecretSummary[]): string {
  const kinds = new Map<string, { count: number; turns: Set<number>; files: Set<string> }>();
  for (const m of found) {
    const kind = kinds.get(m.kind) ?? { count: 0, turns: new Set<number>(), files: new Set<string>() };
    kind.count += m.count;
    m.turns.forEach((t) => kind.turns.add(t));
    kind.files.add(path.basename(m.file));
    kinds.set(m.kind, kind);
  }
  return [...kinds]
    .map(([kind, k]) => {
      const turns = [...k.turns].sort((a, b) => a - b);
      return `${kind} ×${k.count}${turns.length ? ` from turn${turns.length > 1 ? "s" : ""} ${turns.join(", ")}` : ""} (in ${[...k.files].join(", ")})`;
    })
    .join("; ");
}

/** A path relative to here when it is inside, else as it is. */
export function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}
