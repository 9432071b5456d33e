/**
 * A turn's stored patch (changes/turn-NNN.patch) as the page shows it, read a piece at a time: the
 * files it changes come from each section's header lines and counts, and only the patch's start
 * is kept as text. A turn that wrote a 50 MB file has a 50 MB patch; none of it is held whole.
 */
import { openBundleFile } from "../store/bundle-links.js";
import { BINARY_LINE } from "../snapshot/patch-sections.js";
import { PATCH_CHARS, mergeFileChanges, sectionChange } from "./diff-view.js";
import type { DiffView } from "./view-types.js";

/** "Show all" carries this much of a patch at most (a page draws each line: more would hold it for seconds); the rest is read with `nudge session diff`. */
export const FULL_PATCH_BYTES = 512 << 10;
/** What is kept of one line of a section's header (a path); hunk lines are only counted. */
const HEAD_BYTES = 64 << 10;

interface Section {
  header: string[];
  inHunk: boolean;
  counts: { insertions: number; deletions: number; binary: boolean };
}

/** The patch file's view; a missing file is an empty diff. */
export async function storedDiffView(file: string, full: boolean): Promise<DiffView> {
  const handle = await openBundleFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (!handle) return { files: [], patch: "", truncated: false };
  const cap = full ? FULL_PATCH_BYTES : PATCH_CHARS;
  const start: Buffer[] = [];
  let size = 0;
  const sections: Section[] = [];
  let head: Buffer[] = [];
  let headLength = 0;
  const line = () => {
    const text = Buffer.concat(head).toString("utf8");
    head = [];
    headLength = 0;
    onLine(sections, text);
  };
  try {
    for await (const chunk of handle.createReadStream({
      highWaterMark: 1 << 20,
      autoClose: false,
    }) as AsyncIterable<Buffer>) {
      if (size < cap + 1) start.push(Buffer.from(chunk.subarray(0, cap + 1 - size)));
      size += chunk.length;
      let from = 0;
      for (let lf = chunk.indexOf(0x0a); from < chunk.length; lf = chunk.indexOf(0x0a, from)) {
        const end = lf === -1 ? chunk.length : lf;
        const last = sections.at(-1);
        // Most of a big patch: a hunk's lines, counted by their first byte, never made into strings.
        if (
          lf !== -1 &&
          headLength === 0 &&
          last?.inHunk &&
          end > from &&
          chunk[from] !== 0x64 &&
          chunk[from] !== 0x40
        ) {
          if (chunk[from] === 0x2b) last.counts.insertions++;
          else if (chunk[from] === 0x2d) last.counts.deletions++;
          from = lf + 1;
          continue;
        }
        if (headLength < HEAD_BYTES) {
          const part = chunk.subarray(from, Math.min(end, from + HEAD_BYTES - headLength));
          head.push(Buffer.from(part));
          headLength += part.length;
        }
        if (lf === -1) break;
        line();
        from = lf + 1;
      }
    }
    if (headLength > 0) line();
  } finally {
    await handle.close();
  }
  const files = mergeFileChanges(
    sections.filter((s) => s.header[0]?.startsWith("diff --git ")).map((s) => sectionChange(s.header, s.counts)),
  );
  const bytes = Buffer.concat(start);
  const truncated = size > cap;
  // Cut at a line end, so the page never shows half a line as if it were the file's.
  const text = truncated ? bytes.subarray(0, bytes.lastIndexOf(0x0a, cap) + 1) : bytes;
  return { files, patch: text.toString("utf8"), truncated };
}

/** As splitPatch and countChanges see a line: a section starts at "diff --git"; in a hunk, lines are counted. */
function onLine(sections: Section[], line: string): void {
  const last = sections.at(-1);
  if (line.startsWith("diff --git ") || !last) {
    sections.push({
      header: [line],
      inHunk: false,
      counts: { insertions: 0, deletions: 0, binary: !line.startsWith("diff --git ") && BINARY_LINE.test(line) },
    });
  } else if (line.startsWith("@@")) last.inHunk = true;
  else if (last.inHunk && line.startsWith("+")) last.counts.insertions++;
  else if (last.inHunk && line.startsWith("-")) last.counts.deletions++;
  else if (!last.inHunk) {
    last.header.push(line);
    if (BINARY_LINE.test(line)) last.counts.binary = true;
  }
}
