import path from "node:path";

/**
 * Folders that hold nudge's and claude's own files (the session store, claude's config dir) must
 * never be snapshotted, even when a user puts them inside the work tree: a snapshot would then
 * contain the recording of itself. Returns those that are inside `root`, relative to it.
 */
export function ownPathExcludes(root: string, dirs: string[]): string[] {
  return dirs
    .map((dir) => path.relative(root, path.resolve(dir)))
    .filter((rel) => rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel))
    .filter((rel) => rel !== ".git" && !rel.startsWith(`.git${path.sep}`)) // git never snapshots .git anyway
    .map((rel) => rel.split(path.sep).join("/"));
}
