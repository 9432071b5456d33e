/**
 * A git patch as the page shows it: the files it changes (added, renamed, binary, a mode or a
 * symlink change) read from git's own header lines, and the text itself, cut when long. Pure: the
 * turn's stored patch (changes/turn-NNN.patch) and the patch between two turns both come here.
 */
import { BINARY_LINE, countChanges, splitPatch, unquote } from "../snapshot/patch-sections.js";

import type { DiffView, FileChange } from "./view-types.js";

/** A first view carries at most this much of a patch; `full` carries all of it. */
export const PATCH_CHARS = 256 * 1024;

export function diffView(patch: string, full: boolean): DiffView {
  const files = mergeFileChanges(
    splitPatch(patch)
      .filter((s) => s[0]?.startsWith("diff --git "))
      .map(fileChange),
  );
  const truncated = !full && patch.length > PATCH_CHARS;
  // Cut at a line end, so the page never shows half a line as if it were the file's.
  const text = truncated ? patch.slice(0, patch.lastIndexOf("\n", PATCH_CHARS) + 1) : patch;
  return { files, patch: text, truncated };
}

/** One file's section of the patch: what git's header lines say of it. */
function fileChange(lines: string[]): FileChange {
  const hunk = lines.findIndex((l) => l.startsWith("@@"));
  return sectionChange(hunk === -1 ? lines : lines.slice(0, hunk), countChanges(lines));
}

/** A section from its header lines (up to its first hunk) and its counts, as a patch read a piece at a time gives them. */
export function sectionChange(
  header: string[],
  counts: { insertions: number; deletions: number; binary: boolean },
): FileChange {
  const field = (prefix: string) => {
    const line = header.find((l) => l.startsWith(prefix));
    return line === undefined ? null : line.slice(prefix.length);
  };
  const plain = (p: string | null, side: "a/" | "b/") => {
    // git ends the name with a tab when it holds a space ("+++ b/a b.txt\t"): not part of the name.
    const name = p?.replace(/\t$/, "") ?? null;
    if (name === null || name === "/dev/null") return null;
    const path = unquote(name);
    return path.startsWith(side) ? path.slice(2) : path;
  };
  // "index 1a2b..3c4d 100644": the mode, when it did not change.
  const index = /^[0-9a-f]+\.\.[0-9a-f]+ (\d{6})$/.exec(field("index ") ?? "");
  const renamed = field("rename to ") ?? field("copy to ");
  const from = field("rename from ") ?? field("copy from ");
  const path =
    renamed !== null
      ? unquote(renamed)
      : (plain(field("+++ "), "b/") ?? plain(field("--- "), "a/") ?? gitLinePath(header[0] ?? ""));
  const oldMode = field("deleted file mode ") ?? field("old mode ") ?? index?.[1] ?? null;
  const newMode = field("new file mode ") ?? field("new mode ") ?? index?.[1] ?? null;
  const { insertions, deletions, binary } = counts;
  const status: FileChange["status"] =
    field("new file mode ") !== null
      ? "added"
      : field("deleted file mode ") !== null
        ? "deleted"
        : field("rename to ") !== null
          ? "renamed"
          : field("copy to ") !== null
            ? "copied"
            : field("old mode ") !== null && insertions + deletions === 0 && !binary
              ? "mode"
              : "modified";
  return {
    path,
    oldPath: from === null ? null : unquote(from),
    status,
    binary: binary || header.some((l) => BINARY_LINE.test(l) || l === "GIT binary patch"),
    symlink: oldMode === "120000" || newMode === "120000",
    oldMode: status === "added" ? null : oldMode,
    newMode: status === "deleted" ? null : newMode,
    added: insertions,
    removed: deletions,
  };
}

/** git shows a file that became a symlink (or back) as a delete and an add of one path: one change. */
export function mergeFileChanges(files: FileChange[]): FileChange[] {
  const out: FileChange[] = [];
  for (const file of files) {
    const before = out.at(-1);
    if (before && before.status === "deleted" && file.status === "added" && before.path === file.path) {
      out[out.length - 1] = {
        ...file,
        status: "type",
        oldMode: before.oldMode,
        symlink: true,
        added: file.added,
        removed: before.removed,
        binary: before.binary || file.binary,
      };
    } else {
      out.push(file);
    }
  }
  return out;
}

/** "diff --git a/x b/x": the path, when nothing else names it (a mode change, a binary file). */
function gitLinePath(line: string): string {
  const rest = line.slice("diff --git ".length);
  if (rest.startsWith('"')) {
    const end = closingQuote(rest);
    return unquote(rest.slice(0, end + 1)).replace(/^a\//, "");
  }
  // Unquoted and the same on both sides: "a/P b/P".
  return rest.slice(2, 2 + (rest.length - 5) / 2);
}

function closingQuote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}
