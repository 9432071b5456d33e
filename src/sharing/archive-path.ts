/**
 * Which names may appear in an export tarball, shared by the writer (which refuses to write any
 * other) and the reader (which refuses to extract any other).
 *
 * Deliberately narrow: every name nudge writes is made of session ids, claude's ids and file names
 * claude picks (`agent-<id>.jsonl`, `tool-results/<id>.txt`), all plain ASCII. Allowing nothing
 * else rules out, by construction, `..` and absolute paths, backslashes (a Windows separator), NUL
 * and control bytes, and unicode names that normalize to the same file (NFC/NFD on macOS).
 */

/** One path segment: letters, digits, `.`, `_`, `-`; not `.` or `..`; at most 100 bytes (a ustar name field). */
const SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}$/;

/** Where the staged copy of the bundle lives inside the archive (beside `git/` with its git bundle). */
export const SESSION_DIR = "session";

/** Longest path inside the top folder; with the folder it still fits a ustar header without pax. */
export const MAX_PATH_LENGTH = 200;

/** The top folder every entry lives in, e.g. `nudge-1e834beb3b`. */
export function isTopFolder(name: string): boolean {
  return name.length <= 50 && SEGMENT.test(name);
}

/** The same rule for a whole `/`-separated path (the index's JSON Schema carries it as a pattern). */
export const ENTRY_PATH =
  /^(?!(?:.*\/)?\.{1,2}(?:\/|$))[A-Za-z0-9._-]{1,100}(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._-]{1,100})*$/;

/** A path inside the top folder, `/`-separated: `session/changes/turn-001.patch`. */
export function isEntryPath(relative: string): boolean {
  return relative.length <= MAX_PATH_LENGTH && ENTRY_PATH.test(relative);
}

/**
 * The key two names collide under on a case-insensitive file system (macOS and Windows by
 * default): `Notes.txt` and `notes.txt` would be one file there, so an archive holding both is refused.
 */
export function collisionKey(relative: string): string {
  return relative.toLowerCase();
}

/** The folders a path lies in, outermost first: `a/b/c.txt` → `a`, `a/b`. */
export function parentFolders(relative: string): string[] {
  const segments = relative.split("/");
  return segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join("/"));
}
