/**
 * A git patch for people: coloured like `git diff` (red -, green +, cyan hunks, bold headers),
 * binary files named with their size instead of "Binary files … differ", and a `--stat` summary.
 */
import { printablePath } from "../snapshot/git.js";
import { visible } from "../base/inert-text.js";
import { plural } from "../base/format.js";
import { BINARY_LINE, requoteNames, type FileDiff } from "../snapshot/patch-sections.js";
import type { Style } from "./style.js";
import type { DiffLineHighlighter } from "../live/edit-diff.js";

export type { FileDiff } from "../snapshot/patch-sections.js";

/** The widest `--stat` bar; longer ones are scaled down, as git scales to the terminal. */
const STAT_BAR = 50;

/** `highlight`: code highlighted by each file's language on the added/removed lines (the terminal with colour). */
export function renderPatch(files: FileDiff[], style: Style, highlight?: DiffLineHighlighter): string {
  const out: string[] = [];
  for (const file of files) {
    if (file.nowIgnored)
      out.push(style.yellow(`# ${printablePath(file.path)} is ignored now: it left the snapshot, not the disk`));
    let inHunk = false;
    let drawn: string | null;
    // A file's contents and git's header lines are the session's text: shown, never obeyed. The
    // names git quoted in its own octal style are shown as printablePath shows them everywhere else.
    for (const gitLine of file.lines) {
      if (gitLine.startsWith("diff --git ")) inHunk = false;
      else if (gitLine.startsWith("@@")) inHunk = true;
      const line = visible(inHunk ? gitLine : requoteNames(gitLine, printablePath));
      if (!inHunk) out.push(BINARY_LINE.test(line) ? style.yellow(binaryLine(file, line)) : style.bold(line));
      else if (line.startsWith("@@")) out.push(style.cyan(line));
      else if (highlight && (drawn = lineOf(highlight, line, file.path)) !== null) out.push(drawn);
      else if (line.startsWith("+")) out.push(style.green(line));
      else if (line.startsWith("-")) out.push(style.red(line));
      else if (line.startsWith("\\"))
        out.push(style.dim(line)); // "\ No newline at end of file"
      else out.push(line);
    }
  }
  return out.map((l) => l + "\n").join("");
}

/** A hunk's line drawn by the highlighter (null: not a code line, or a language it does not know). */
function lineOf(highlight: DiffLineHighlighter, line: string, file: string): string | null {
  const kind = line[0];
  return kind === "+" || kind === "-" || kind === " " ? highlight({ kind, code: line.slice(1), file }) : null;
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
  const names = files.map((f) =>
    f.oldPath ? `${printablePath(f.oldPath)} => ${printablePath(f.path)}` : printablePath(f.path),
  );
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
