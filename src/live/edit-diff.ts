/**
 * What a Write, Edit, MultiEdit or NotebookEdit would change, as a unified diff made with the
 * `diff` package, for the permission question: coloured by the terminal's style, plain for the page. A Write is compared with the file on disk (a new
 * file shows as all added); an Edit applies old_string → new_string to the file's content
 * (replace_all honoured), as claude will. When the file cannot be read or the old string is not in
 * it, the diff is of the strings alone: still the change claude asks for.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { structuredPatch } from "diff";
import { visible } from "../base/inert-text.js";

/** The colours a frontend paints the diff with (the terminal's Style is one); plain text without. */
interface Paint {
  dim(text: string): string;
  cyan(text: string): string;
  green(text: string): string;
  red(text: string): string;
}

const PLAIN: Paint = { dim: (t) => t, cyan: (t) => t, green: (t) => t, red: (t) => t };

/** Files larger than this are not read for a diff (the strings alone are shown). */
const MAX_FILE_BYTES = 1024 * 1024;

export interface DiffOptions {
  cwd: string;
  style?: Paint;
  /** At most this many diff lines; the rest is "… N more lines". */
  maxLines?: number;
  /** The file's text; null when there is no such file, undefined when it cannot be compared (binary, too large, unreadable). */
  readFile?: (absolutePath: string) => string | null | undefined;
  /**
   * A frontend's own drawing of a diff line, syntax-highlighted by the file's language (the
   * terminal's, with colour); null, or absent, for the plain colouring above.
   */
  highlight?: DiffLineHighlighter;
}

interface FileDiffOptions extends DiffOptions {
  file?: string;
}

/** One diff line drawn with its code highlighted: `kind` is its first character, `code` the rest (already visible), `file` says the language. */
export type DiffLineHighlighter = (line: { kind: "+" | "-" | " "; code: string; file: string }) => string | null;

/** The diff lines for a file-changing tool call, or null for a tool that changes no file. */
export function editDiff(tool: string, input: Record<string, unknown>, o: DiffOptions): string[] | null {
  const file = str(input.file_path) ?? str(input.notebook_path);
  if (!file) return null;
  const absolute = path.resolve(o.cwd, file);
  const read = o.readFile ?? readText;
  // The file goes with the options to each hunk line: its extension says how to highlight it.
  o = { ...o, file: absolute } as FileDiffOptions;
  switch (tool) {
    case "Write": {
      const before = read(absolute);
      if (before === undefined)
        return render(
          "",
          str(input.content) ?? "",
          o,
          "(replaces a file that cannot be compared: binary, large or unreadable)",
        );
      return render(before ?? "", str(input.content) ?? "", o, before === null ? "(new file)" : undefined);
    }
    case "Edit":
      return applyEdits(read(absolute), [input], o);
    case "MultiEdit":
      return applyEdits(
        read(absolute),
        Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[]) : [],
        o,
      );
    case "NotebookEdit": {
      const mode = str(input.edit_mode) ?? "replace";
      const cell = str(input.cell_id) ? `cell ${str(input.cell_id)}` : "a new cell";
      const source = str(input.new_source) ?? "";
      return [(o.style ?? PLAIN).dim(`${mode} ${cell}`), ...(mode === "delete" ? [] : render("", source, o))];
    }
    default:
      return null;
  }
}

/** Apply the edits one after another to the file's text; where that fails, show the strings. */
function applyEdits(before: string | null | undefined, edits: Record<string, unknown>[], o: DiffOptions): string[] {
  if (typeof before === "string") {
    let after = before;
    let applied = true;
    for (const edit of edits) {
      const oldString = str(edit.old_string) ?? "";
      const newString = str(edit.new_string) ?? "";
      if (!oldString || !after.includes(oldString)) {
        applied = false;
        break;
      }
      // split/join, not String.replace: "$&" in new_string must stay literal text.
      after =
        edit.replace_all === true ? after.split(oldString).join(newString) : after.replace(oldString, () => newString);
    }
    if (applied) return render(before, after, o);
  }
  const note =
    before === null
      ? "(file not found; the strings to replace)"
      : before === undefined
        ? "(file cannot be compared; the strings to replace)"
        : "(text not found in the file; the strings to replace)";
  // Fragments, not files: their missing final newline is no news.
  const whole = (s: string | undefined) => (s && !s.endsWith("\n") ? `${s}\n` : (s ?? ""));
  return [
    (o.style ?? PLAIN).dim(note),
    ...edits.flatMap((e) => render(whole(str(e.old_string)), whole(str(e.new_string)), o)),
  ];
}

function render(before: string, after: string, o: DiffOptions, note?: string): string[] {
  const style = o.style ?? PLAIN;
  const patch = structuredPatch("a", "b", before, after, "", "", { context: 3 });
  const lines: string[] = note ? [style.dim(note)] : [];
  for (const hunk of patch.hunks) {
    // As git writes it: an empty side starts at the line before the hunk (0 for an empty file).
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    lines.push(style.cyan(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`));
    for (const raw of hunk.lines) {
      const line = visible(raw);
      const kind = line[0];
      const file = (o as FileDiffOptions).file;
      const drawn =
        o.highlight && file && (kind === "+" || kind === "-" || kind === " ")
          ? o.highlight({ kind, code: line.slice(1), file })
          : null;
      if (drawn !== null) lines.push(drawn);
      else if (line.startsWith("+")) lines.push(style.green(line));
      else if (line.startsWith("-")) lines.push(style.red(line));
      else if (line.startsWith("\\")) lines.push(style.dim(line));
      else lines.push(line);
    }
  }
  if (patch.hunks.length === 0) lines.push(style.dim("(no change)"));
  return cap(lines, o.maxLines ?? 40, style);
}

function cap(lines: string[], max: number, style: Paint): string[] {
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max), style.dim(`… ${lines.length - max} more lines`)];
}

function readText(file: string): string | null | undefined {
  try {
    if (statSync(file).size > MAX_FILE_BYTES) return undefined;
    const text = readFileSync(file, "utf8");
    return text.includes("\u0000") ? undefined : text;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
