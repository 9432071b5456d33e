/**
 * A git patch cut into its files, and the counts of each: pure text work shared by the terminal's
 * diff (src/terminal/diff-renderer.ts) and the web view's (src/view/diff-view.ts).
 */

export type FileStatus = "added" | "modified" | "deleted" | "renamed" | "type-changed";

export interface FileDiff {
  path: string;
  /** The path before a rename. */
  oldPath?: string;
  status: FileStatus;
  insertions: number;
  deletions: number;
  binary: boolean;
  /** git modes (100644, 100755, 120000, …) before and after, null on the side where the file does not exist. */
  oldMode?: string | null;
  newMode?: string | null;
  /** Sizes in bytes before and after, null on the side where the file does not exist. */
  oldBytes: number | null;
  newBytes: number | null;
  /** This file's part of git's patch, line by line. */
  lines: string[];
  /** Deleted from the snapshot because an ignore rule now covers it: the file is still on disk. */
  nowIgnored?: boolean;
}

/** git's line for a binary file when the patch carries no binary data. */
export const BINARY_LINE = /^Binary files (.+) and (.+) differ$/;

/** Cut a patch at its "diff --git" lines: one section per file, except a type change, which git shows as a delete and an add. */
export function splitPatch(patch: string): string[][] {
  const lines = patch.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const sections: string[][] = [];
  for (const line of lines) {
    if (line.startsWith("diff --git ") || sections.length === 0) sections.push([]);
    sections.at(-1)!.push(line);
  }
  return sections;
}

/** A section's added and removed lines (only inside hunks, where "--- a/x" is content, not a header) and whether git found it binary. */
export function countChanges(lines: string[]): { insertions: number; deletions: number; binary: boolean } {
  let insertions = 0;
  let deletions = 0;
  let binary = false;
  let inHunk = false;
  for (const line of lines) {
    if (line.startsWith("diff --git ")) inHunk = false;
    else if (line.startsWith("@@")) inHunk = true;
    else if (inHunk && line.startsWith("+")) insertions++;
    else if (inHunk && line.startsWith("-")) deletions++;
    else if (!inHunk && BINARY_LINE.test(line)) binary = true;
  }
  return { insertions, deletions, binary };
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/** A path as git C-quotes it ("caf\303\251.txt") back to its text; an unquoted one as it is. */
export function unquote(text: string): string {
  if (!text.startsWith('"') || !text.endsWith('"') || text.length < 2) return text;
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(ESCAPES[body[i + 1] ?? ""] ?? 92);
      i++;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** A header line of git's patch with each name git quoted (`"a/\\033[31m.txt"`) written as nudge shows names everywhere else (`show`). */
export function requoteNames(line: string, show: (path: string) => string): string {
  return line.replace(/"(?:[^"\\]|\\.)*"/g, (name) => show(unquote(name)));
}
