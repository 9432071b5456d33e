/**
 * A git patch for people: coloured like `git diff` (red -, green +, cyan hunks, bold headers),
 * binary files named with their size instead of "Binary files … differ", and a `--stat` summary.
 */
import { printablePath } from "../snapshot/git.js";
import { visible } from "../inert-text.js";
import { plural } from "./format.js";
import type { Style } from "./style.js";

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

/** The widest `--stat` bar; longer ones are scaled down, as git scales to the terminal. */
const STAT_BAR = 50;
const BINARY_LINE = /^Binary files (.+) and (.+) differ$/;

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

export function renderPatch(files: FileDiff[], style: Style): string {
  const out: string[] = [];
  for (const file of files) {
    if (file.nowIgnored) out.push(style.yellow(`# ${printablePath(file.path)} is ignored now: it left the snapshot, not the disk`));
    let inHunk = false;
    // A file's contents and git's header lines are the session's text: shown, never obeyed.
    for (const line of file.lines.map(visible)) {
      if (line.startsWith("diff --git ")) inHunk = false;
      else if (line.startsWith("@@")) inHunk = true;
      if (!inHunk) out.push(BINARY_LINE.test(line) ? style.yellow(binaryLine(file, line)) : style.bold(line));
      else if (line.startsWith("@@")) out.push(style.cyan(line));
      else if (line.startsWith("+")) out.push(style.green(line));
      else if (line.startsWith("-")) out.push(style.red(line));
      else if (line.startsWith("\\")) out.push(style.dim(line)); // "\ No newline at end of file"
      else out.push(line);
    }
  }
  return out.map((l) => l + "\n").join("");
}

/** "Binary files a/x and b/x differ" → "Binary file x modified (10 → 12 bytes)". */
function binaryLine(file: FileDiff, gitLine: string): string {
  const [, before, after] = BINARY_LINE.exec(gitLine)!;
  const name = file.oldPath ? `${printablePath(file.oldPath)} → ${printablePath(file.path)}` : printablePath(file.path);
  if (before === "/dev/null") return `Binary file ${name} added (${bytes(file.newBytes)})`;
  if (after === "/dev/null") return `Binary file ${name} deleted (${bytes(file.oldBytes)})`;
  const verb = file.oldPath ? "renamed and modified" : "modified";
  return `Binary file ${name} ${verb} (${file.oldBytes ?? "?"} → ${bytes(file.newBytes)})`;
}

/** One line per file with its +/- count and bar, then the totals, like `git diff --stat`. */
export function renderStat(files: FileDiff[], style: Style): string {
  const names = files.map((f) => (f.oldPath ? `${printablePath(f.oldPath)} => ${printablePath(f.path)}` : printablePath(f.path)));
  const counts = files.map((f) => (f.binary ? "Bin" : String(f.insertions + f.deletions)));
  const nameWidth = Math.max(0, ...names.map((n) => n.length));
  const countWidth = Math.max(0, ...counts.map((c) => c.length));
  const widest = Math.max(0, ...files.map((f) => f.insertions + f.deletions));
  const scale = widest > STAT_BAR ? STAT_BAR / widest : 1;
  const bar = (n: number) => (n === 0 ? 0 : Math.max(1, Math.round(n * scale)));
  const lines = files.map((f, i) => {
    const head = ` ${names[i]!.padEnd(nameWidth)} | ${counts[i]!.padStart(countWidth)}`;
    if (f.binary) return `${head} ${f.oldBytes ?? 0} -> ${bytes(f.newBytes ?? 0)}`;
    const [plus, minus] = [bar(f.insertions), bar(f.deletions)];
    const note = f.nowIgnored ? style.yellow(" (now ignored, still on disk)") : "";
    if (plus + minus === 0) return head + note;
    return `${head} ${plus ? style.green("+".repeat(plus)) : ""}${minus ? style.red("-".repeat(minus)) : ""}${note}`;
  });
  return [...lines, totals(files)].map((l) => l + "\n").join("");
}

/** " 3 files changed, 2 insertions(+), 1 deletion(-)"; like git, a zero count is left out unless both are zero. */
function totals(files: FileDiff[]): string {
  const insertions = files.reduce((n, f) => n + f.insertions, 0);
  const deletions = files.reduce((n, f) => n + f.deletions, 0);
  const parts = [`${plural(files.length, "file")} changed`];
  if (insertions > 0 || deletions === 0) parts.push(`${plural(insertions, "insertion")}(+)`);
  if (deletions > 0 || insertions === 0) parts.push(`${plural(deletions, "deletion")}(-)`);
  return ` ${parts.join(", ")}`;
}

function bytes(n: number | null): string {
  return n === null ? "? bytes" : plural(n, "byte");
}
