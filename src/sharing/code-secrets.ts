/**
 * Secrets in the code an export carries. They cannot be masked: a masked patch would no longer
 * reproduce the snapshot its turn recorded, and the git objects hold the file as it was. So they
 * are found in each turn's patch (every line a patch shows is in a file some snapshot holds) and
 * named by file and turn, for the export to refuse, or to report with --allow-secrets-in-code.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { scanText } from "./secrets.js";

export interface CodeSecret {
  kind: string;
  /** The file in the repository, as the patch names it. */
  path: string;
  turn: number;
  /** The patch it was found in, inside the bundle: changes/turn-002.patch. */
  patch: string;
}

export async function scanPatches(bundleDir: string, patches: Array<{ file: string; turn: number }>): Promise<CodeSecret[]> {
  const found: CodeSecret[] = [];
  const seen = new Set<string>();
  for (const patch of patches) {
    const data = await fs.readFile(path.join(bundleDir, patch.file)).catch(() => null);
    if (!data || data.length === 0) continue;
    const findings = await scanText(data, { file: patch.file });
    if (findings.length === 0) continue;
    const fileOfLine = patchFiles(data.toString("utf8"));
    for (const f of findings) {
      const secret = { kind: f.kind, path: fileOfLine[f.line - 1] ?? "(patch header)", turn: patch.turn, patch: patch.file };
      const key = `${secret.turn}\0${secret.path}\0${secret.kind}`;
      if (!seen.has(key)) found.push(secret);
      seen.add(key);
    }
  }
  return found;
}

/** For each line of a git patch, the file its hunk belongs to (the `+++ b/…` name, or `--- a/…` for a deletion). */
export function patchFiles(patch: string): Array<string | undefined> {
  const lines = patch.split("\n");
  const out: Array<string | undefined> = [];
  let current: string | undefined;
  for (const [i, line] of lines.entries()) {
    if (line.startsWith("diff --git ")) current = fromDiffLine(line, lines, i);
    out.push(current);
  }
  return out;
}

/** The path of one file's diff: its `+++`/`---` lines when it has them, else the `diff --git` line. */
function fromDiffLine(line: string, lines: string[], at: number): string | undefined {
  for (let i = at + 1; i < lines.length && !lines[i]!.startsWith("diff --git "); i++) {
    const l = lines[i]!;
    if (l.startsWith("+++ ") && l !== "+++ /dev/null") return unquote(l.slice(4)).replace(/^b\//, "");
    if (l.startsWith("--- ") && l !== "--- /dev/null" && lines[i + 1] === "+++ /dev/null") return unquote(l.slice(4)).replace(/^a\//, "");
    if (l.startsWith("@@") || l.startsWith("Binary files")) break;
  }
  const plain = / b\/(.+)$/.exec(line);
  return plain ? plain[1] : undefined;
}

/** git quotes a path with special characters as "…" with C escapes; shown as it is, minus the quotes. */
function unquote(name: string): string {
  return name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1) : name;
}
