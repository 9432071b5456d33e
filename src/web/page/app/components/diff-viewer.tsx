/**
 * A diff as git wrote it, drawn per file: unified or side by side, lines highlighted by the file's
 * extension, and what a patch says apart from lines (binary, a mode change, a rename, a symlink)
 * said in words. Git's text is parsed here, not by a diff library: the file list (status, modes,
 * binary) comes parsed from the server, and only the hunks' lines are left to draw.
 */
import { useEffect, useState } from "preact/hooks";
import type { DiffView, FileChange } from "../../../../view/view-types.js";
import { highlight, languageOfPath } from "../highlight.js";
import { ClippedNote } from "./clipped-block.js";
import { everythingShown, onShowEverything } from "../show-everything.js";

type Line = { kind: "add" | "del" | "ctx" | "hunk" | "note"; text: string; old: number | null; new: number | null };

/** Lines past this in one file are drawn without highlighting: highlighting is the slow part. */
const HIGHLIGHT_LINES = 3000;
/**
 * Files drawn at first; the rest behind a button. A turn that adds a thousand files (a generated
 * folder, a first commit's worth of uncommitted work in turn 0) took the page's main thread for
 * most of a second when every file's table was drawn at once.
 */
const FIRST_FILES = 25;

export function DiffViewer({
  diff,
  label,
  heading,
  onShowAll,
}: {
  diff: DiffView;
  label: string;
  heading?: string;
  onShowAll?: (() => void) | null;
}) {
  const [split, setSplit] = useState(false);
  const [shownFiles, setShownFiles] = useState(everythingShown() ? Infinity : FIRST_FILES);
  const sections = sectionsOf(diff);
  const hidden = diff.files.length - shownFiles;
  // The in-page search looks at every file.
  useEffect(() => onShowEverything(() => setShownFiles(Infinity)), []);
  return (
    <section class="diff" aria-label={label}>
      <div class="diff-bar">
        <h3>{heading ?? label}</h3>
        <span class="muted">
          {diff.files.length === 0 ? "no changes" : `${diff.files.length} file${diff.files.length === 1 ? "" : "s"}`}
        </span>
        {diff.files.length ? (
          <span class="toggle" role="group" aria-label="Diff layout">
            <button type="button" aria-pressed={!split} onClick={() => setSplit(false)}>
              Unified
            </button>
            <button type="button" aria-pressed={split} onClick={() => setSplit(true)}>
              Side by side
            </button>
          </span>
        ) : null}
      </div>
      {diff.files.slice(0, shownFiles).map((file, i) => (
        <FileDiff key={i} file={file} lines={sections[i] ?? []} split={split} />
      ))}
      {hidden > 0 ? (
        <p class="clipped">
          {`${hidden} more file${hidden === 1 ? "" : "s"} changed: `}
          {diff.files
            .slice(shownFiles, shownFiles + 5)
            .map((f) => f.path)
            .join(", ")}
          {hidden > 5 ? ", …" : ""}
          <button type="button" onClick={() => setShownFiles(Infinity)}>
            Show {hidden === 1 ? "it" : `all ${hidden}`}
          </button>
        </p>
      ) : null}
      {diff.truncated ? (
        <ClippedNote
          text={onShowAll ? "The diff is cut here." : "The diff is cut here: nudge session diff shows all of it."}
          onShowAll={onShowAll ?? null}
        />
      ) : null}
    </section>
  );
}

function FileDiff({ file, lines, split }: { file: FileChange; lines: Line[]; split: boolean }) {
  const language = languageOfPath(file.path);
  const notes = [
    file.status === "renamed" || file.status === "copied" ? `${file.status} from ${file.oldPath ?? "?"}` : null,
    file.status === "added" ? "new file" : file.status === "deleted" ? "deleted" : null,
    file.status === "type" ? "became a symlink or a file" : null,
    file.symlink ? "symlink" : null,
    file.oldMode && file.newMode && file.oldMode !== file.newMode ? `mode ${file.oldMode} → ${file.newMode}` : null,
    file.binary ? "binary file: contents not shown" : null,
  ].filter(Boolean);
  return (
    <div class="file">
      <div class="file-head">
        <span class="path">
          {file.oldPath && file.status === "renamed" ? `${file.oldPath} → ${file.path}` : file.path}
        </span>
        <span class={`badge status-${file.status}`}>{file.status}</span>
        <span class="add">+{file.added}</span> <span class="del">−{file.removed}</span>
        {notes.length ? <span class="muted"> · {notes.join(" · ")}</span> : null}
      </div>
      {lines.length ? (
        split ? (
          <SplitLines lines={lines} language={language} />
        ) : (
          <UnifiedLines lines={lines} language={language} />
        )
      ) : null}
    </div>
  );
}

/** A line longer than this (a minified file, a data blob) shows its start and a button for the rest: wrapped whole, one line was a screen-tall block. */
const LINE_CLIP = 400;

function Code({ text, language, index }: { text: string; language: string | null; index: number }) {
  const long = text.length > LINE_CLIP;
  const [whole, setWhole] = useState(everythingShown());
  // The page's search looks at everything: a long line is drawn whole first.
  useEffect(() => (long ? onShowEverything(() => setWhole(true)) : undefined), [long]);
  const clipped = !whole && long;
  const shown = clipped ? text.slice(0, LINE_CLIP) : text;
  const html = index < HIGHLIGHT_LINES && !clipped ? highlight(shown, language) : null;
  // hljs escapes what it highlights: its output is its spans around escaped text.
  const code = html === null ? <code>{shown}</code> : <code dangerouslySetInnerHTML={{ __html: html }} />;
  if (!clipped) return code;
  return (
    <>
      {code}
      <button type="button" class="link line-more" onClick={() => setWhole(true)}>
        {`… ${(text.length - LINE_CLIP).toLocaleString("en")} more characters`}
      </button>
    </>
  );
}

function UnifiedLines({ lines, language }: { lines: Line[]; language: string | null }) {
  return (
    <table class="lines unified">
      {/* table-layout: fixed sizes the columns from the first row, often a hunk header spanning them all: the widths are the columns'. */}
      <colgroup>
        <col class="ln" />
        <col class="ln" />
        <col />
      </colgroup>
      <tbody>
        {lines.map((l, i) =>
          l.kind === "hunk" || l.kind === "note" ? (
            <tr key={i} class={l.kind}>
              <td colSpan={3}>{l.text}</td>
            </tr>
          ) : (
            <tr key={i} class={l.kind}>
              <td class="ln">{l.old ?? ""}</td>
              <td class="ln">{l.new ?? ""}</td>
              <td class="code">
                <span class="sign">{l.kind === "add" ? "+" : l.kind === "del" ? "-" : " "}</span>
                <Code text={l.text} language={language} index={i} />
              </td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

/** Side by side: a run of removed lines faces the run of added lines that follows it. */
function SplitLines({ lines, language }: { lines: Line[]; language: string | null }) {
  const rows: Array<[Line | null, Line | null] | Line> = [];
  for (let i = 0; i < lines.length;) {
    const l = lines[i]!;
    if (l.kind === "hunk" || l.kind === "note") (rows.push(l), i++);
    else if (l.kind === "ctx") (rows.push([l, l]), i++);
    else {
      const del: Line[] = [];
      const add: Line[] = [];
      while (lines[i]?.kind === "del") del.push(lines[i++]!);
      while (lines[i]?.kind === "add") add.push(lines[i++]!);
      for (let k = 0; k < Math.max(del.length, add.length); k++) rows.push([del[k] ?? null, add[k] ?? null]);
    }
  }
  const side = (l: Line | null, which: "old" | "new", i: number) => (
    <>
      <td class="ln">{l?.[which] ?? ""}</td>
      <td class={`code ${l ? l.kind : "empty"}`}>{l ? <Code text={l.text} language={language} index={i} /> : null}</td>
    </>
  );
  return (
    <table class="lines split">
      <colgroup>
        <col class="ln" />
        <col />
        <col class="ln" />
        <col />
      </colgroup>
      <tbody>
        {rows.map((r, i) =>
          Array.isArray(r) ? (
            <tr key={i}>
              {side(r[0], "old", i)}
              {side(r[1], "new", i)}
            </tr>
          ) : (
            <tr key={i} class={r.kind}>
              <td colSpan={4}>{r.text}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

/** The patch's lines per file, in the order of `diff.files` (a type change is two of git's sections, one file). */
function sectionsOf(diff: DiffView): Line[][] {
  const raw: string[][] = [];
  for (const line of diff.patch.split("\n")) {
    if (line.startsWith("diff --git ")) raw.push([]);
    raw.at(-1)?.push(line);
  }
  const out: Line[][] = [];
  let k = 0;
  for (const file of diff.files) {
    const taken = raw.slice(k, (k += file.status === "type" ? 2 : 1)).flat();
    out.push(linesOf(taken));
  }
  return out;
}

function linesOf(section: string[]): Line[] {
  const out: Line[] = [];
  let old = 0;
  let now = 0;
  let inHunk = false;
  for (const text of section) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      inHunk = true;
      old = Number(hunk[1]);
      now = Number(hunk[2]);
      out.push({ kind: "hunk", text, old: null, new: null });
    } else if (text.startsWith("diff --git ")) {
      inHunk = false;
    } else if (!inHunk) {
      continue; // git's header lines: said in words in the file's head
    } else if (text.startsWith("+")) out.push({ kind: "add", text: text.slice(1), old: null, new: now++ });
    else if (text.startsWith("-")) out.push({ kind: "del", text: text.slice(1), old: old++, new: null });
    else if (text.startsWith("\\")) out.push({ kind: "note", text, old: null, new: null });
    // A context line starts with a space; the "" after the patch's final newline is no line.
    else if (text.startsWith(" ")) out.push({ kind: "ctx", text: text.slice(1), old: old++, new: now++ });
  }
  return out;
}
