/** Bytes on disk of a repository's .git and of nudge's bundle, by part, to measure growth per turn. */
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";

/** Sum of file sizes under `dir` (apparent bytes, as `du -b`), 0 if missing. */
export function treeBytes(dir: string, skip: (rel: string) => boolean = () => false, rel = ""): number {
  let entries;
  try {
    entries = readdirSync(path.join(dir, rel), { withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const e of entries) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (skip(child)) continue;
    if (e.isDirectory()) total += treeBytes(dir, skip, child);
    else total += lstatSync(path.join(dir, child)).size;
  }
  return total;
}

export interface StoreSizes {
  /** .git without nudge's folder: objects, refs, logs, the user's index. */
  git: number;
  /** nudge's private indexes (.git/nudge/index). */
  privateIndex: number;
  /** The session's bundle, by part. */
  bundle: Record<"transcriptCopy" | "stream" | "input" | "journal" | "patches" | "other", number>;
}

export function storeSizes(repo: string, sessionId: string): StoreSizes {
  const gitDir = path.join(repo, ".git");
  const bundle = path.join(gitDir, "nudge", "sessions", sessionId);
  const file = (name: string) => treeBytes(bundle, (rel) => rel !== name && !rel.startsWith(`${name}/`));
  const parts = {
    transcriptCopy: treeBytes(path.join(bundle, "claude")),
    stream: file("conversation.jsonl") + file("conversation.d") + file("timing.txt") + file("claude-stderr.log"),
    input: file("input.jsonl") + file("input-timing.txt"),
    journal: file("turns.jsonl") + file("manifest.json"),
    patches: treeBytes(path.join(bundle, "changes")),
  };
  const all = treeBytes(bundle);
  return {
    git: treeBytes(gitDir, (rel) => rel === "nudge"),
    privateIndex: treeBytes(path.join(gitDir, "nudge", "index")),
    bundle: { ...parts, other: all - Object.values(parts).reduce((a, b) => a + b, 0) },
  };
}

export function sizeDelta(before: StoreSizes, after: StoreSizes, turns: number): StoreSizes {
  const per = (a: number, b: number) => (b - a) / turns;
  const bundle = Object.fromEntries(
    Object.keys(after.bundle).map((k) => [
      k,
      per(before.bundle[k as keyof StoreSizes["bundle"]], after.bundle[k as keyof StoreSizes["bundle"]]),
    ]),
  );
  return {
    git: per(before.git, after.git),
    privateIndex: per(before.privateIndex, after.privateIndex),
    bundle: bundle as StoreSizes["bundle"],
  };
}
