/**
 * What the machine refused (a read-only or full disk, a file where a folder should be, a folder
 * that was removed, a permission): the user's to fix, so exit 1 with a hint, not a bug report;
 * said as a sentence ("cannot open /x: permission denied"), not node's "EACCES: …, open '/x'".
 */
import path from "node:path";
import { DISK_FULL_HINT, errorMessage } from "./errors.js";

const HINTS: Record<string, string> = {
  EACCES: "check the permissions of that path",
  EPERM: "check the permissions of that path",
  EROFS: "that file system is read-only",
  ENOSPC: DISK_FULL_HINT,
  EDQUOT: DISK_FULL_HINT,
  ENOTDIR: "a file stands where a folder is needed; check that path",
  ENOENT: "check that the path exists",
};

/** What each call was doing, in words; a call not named here is shown by its own name. */
const DOING: Record<string, string> = {
  open: "open",
  mkdir: "make the folder",
  rmdir: "remove the folder",
  rm: "remove",
  unlink: "remove",
  rename: "rename",
  copyfile: "copy",
  scandir: "list the folder",
  lstat: "look at",
  stat: "look at",
  access: "reach",
  write: "write",
  symlink: "link",
  link: "link",
  chmod: "change the mode of",
  utime: "set the time of",
};

export function systemProblem(error: unknown): { message: string; hint: string } | null {
  if (!(error instanceof Error) || !("code" in error) || typeof error.code !== "string") return null;
  const e = error as NodeJS.ErrnoException;
  if (e.syscall === "uv_cwd") {
    return {
      message: "the current folder no longer exists (a rewind may have removed it)",
      hint: "cd to the repository's top folder and run the command again",
    };
  }
  // A folder to be made where a file stands (mkdir's EEXIST): elsewhere EEXIST is nudge's own race to handle.
  const hint = e.code === "EEXIST" && e.syscall === "mkdir" ? HINTS.ENOTDIR : HINTS[e.code!];
  if (!hint) return null;
  // Moving the store is a way out only where the store is what cannot be written (not an export's path).
  const storeWay = ["EACCES", "EPERM", "EROFS"].includes(e.code!) && e.path !== undefined && inStore(e.path);
  return {
    message: sentence(e),
    hint: storeWay ? `${hint}; NUDGE_STORE can point the store at a writable folder` : hint,
  };
}

/** An error's message, a system refusal's as the sentence `systemProblem` makes of it. */
export function plainMessage(error: unknown): string {
  return systemProblem(error)?.message ?? errorMessage(error);
}

/** A path in nudge's store: its default place in a repository, or where NUDGE_STORE puts it. */
function inStore(file: string): boolean {
  const moved = process.env.NUDGE_STORE ? path.resolve(process.env.NUDGE_STORE) : null;
  return `${file}/`.includes("/.git/nudge/") || (moved !== null && `${file}/`.startsWith(`${moved}/`));
}

/** "EACCES: permission denied, open '/x'" → "cannot open /x: permission denied"; anything else as it is. */
function sentence(e: NodeJS.ErrnoException): string {
  const what = /^[A-Z]+: ([^,]+), /.exec(e.message)?.[1];
  if (!what || !e.syscall || e.path === undefined) return e.message;
  const dest = (e as NodeJS.ErrnoException & { dest?: string }).dest;
  return `cannot ${DOING[e.syscall] ?? e.syscall} ${e.path}${dest ? ` to ${dest}` : ""}: ${what}`;
}
