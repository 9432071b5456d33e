import { createHash } from "node:crypto";

export interface PatchStats {
  filesChanged: number;
  insertions: number;
  deletions: number;
  binaryFiles: number;
}

/**
 * Count a git patch's files and +/- lines in one pass over its bytes, instead of asking git a
 * second time for --numstat on the per-turn hot path.
 */
export function patchStats(patch: Buffer): PatchStats {
  const stats: PatchStats = { filesChanged: 0, insertions: 0, deletions: 0, binaryFiles: 0 };
  let inHunk = false;
  let lastHeader = "";
  let start = 0;
  while (start < patch.length) {
    let end = patch.indexOf(0x0a, start);
    if (end === -1) end = patch.length;
    const first = patch[start];
    if (first === 0x64 /* d */ && startsWith(patch, start, "diff --git ")) {
      // git writes a type change (file ↔ symlink) as a deletion and an addition under the same
      // header: one file, as `session diff --stat` and `git diff --stat` count it.
      const header = patch.toString("latin1", start, end);
      if (header !== lastHeader) stats.filesChanged++;
      lastHeader = header;
      inHunk = false;
    } else if (first === 0x40 /* @ */ && startsWith(patch, start, "@@ ")) {
      inHunk = true;
    } else if (inHunk && first === 0x2b /* + */) {
      stats.insertions++;
    } else if (inHunk && first === 0x2d /* - */) {
      stats.deletions++;
    } else if (!inHunk && first === 0x42 /* B */ && startsWith(patch, start, "Binary files ")) {
      // Binary files are named by object id, not copied: "Binary files a/x and b/x differ".
      stats.binaryFiles++;
    } else if (!inHunk && first === 0x47 /* G */ && startsWith(patch, start, "GIT binary patch")) {
      stats.binaryFiles++; // bundles recorded before: base85 copies
    }
    start = end + 1;
  }
  return stats;
}

function startsWith(buf: Buffer, at: number, prefix: string): boolean {
  return buf.toString("latin1", at, at + prefix.length) === prefix;
}

export function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
