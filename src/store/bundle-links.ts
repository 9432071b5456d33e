/**
 * No symbolic link in a session's folder is ever followed. nudge writes none there, so one is
 * someone else's doing (a sandboxed claude, a hand edit, a hostile copy), and through it a page,
 * a show, an export or a push would read any file of the user's (`conversation.jsonl` →
 * `~/.ssh/id_rsa`). Each file is opened with O_NOFOLLOW, after an lstat of the folder that holds
 * it (O_NOFOLLOW checks only the last step); an export, which copies whole folders, first walks
 * the session's folder and refuses any link in it. The cost: one lstat per file read. Nor is
 * anything but a file read: a FIFO in a file's place would block the command for good, a folder
 * would fail as EISDIR (O_NONBLOCK opens a FIFO at once; the open file is then checked).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, promises as fs, type Dirent } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { visible } from "../base/inert-text.js";

const READ_NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function refused(file: string): UserError {
  return new UserError(
    `${visible(file)} is a symbolic link: nudge reads no link in a session's folder (it could lead to any of your files)`,
    "nothing was read through it; remove the link (if it replaced a file of the session, that file is gone)",
  );
}

/** A FIFO, a folder or a device where a session keeps a file: refused, never read (a FIFO would block for good). */
export function notAFile(file: string): UserError {
  return new UserError(
    `${visible(file)} is not a file (a FIFO, a folder or a device where a session keeps a file): nudge reads nothing else there`,
    "nothing was read from it; move it away (if it replaced a file of the session, that file is gone)",
  );
}

/**
 * Whether `folder` is a real folder: false when missing, a refusal when a link. Synchronous: one
 * lstat costs a few µs, and no error is made for a missing folder (a thread-pool round trip and
 * an ENOENT error on every read cost a turn's read several times its time under load).
 */
function realFolder(folder: string): boolean {
  const stat = lstatSync(folder, { throwIfNoEntry: false });
  if (stat?.isSymbolicLink()) throw refused(folder);
  return stat !== undefined && stat.isDirectory();
}

/** A folder of a bundle checked before it is listed or a file in it is read: a link is refused. */
export function checkFolder(folder: string): void {
  realFolder(folder);
}

/** ELOOP from an O_NOFOLLOW open is the link itself: said as a refusal; every other error as it was. */
function linkError(file: string): (error: NodeJS.ErrnoException) => never {
  return (error) => {
    throw error.code === "ELOOP" ? refused(file) : error;
  };
}

export async function openBundleFile(file: string): Promise<fs.FileHandle> {
  checkFolder(path.dirname(file));
  const handle = await fs.open(file, READ_NO_FOLLOW).catch(linkError(file));
  const stat = await handle.stat().catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  if (stat.isFile()) return handle;
  await handle.close();
  throw notAFile(file);
}

/** The same, synchronous: a file descriptor the caller closes. */
export function openBundleFileSync(file: string): number {
  checkFolder(path.dirname(file));
  let fd: number;
  try {
    fd = openSync(file, READ_NO_FOLLOW);
  } catch (error) {
    return linkError(file)(error as NodeJS.ErrnoException);
  }
  let isFile = false;
  try {
    isFile = fstatSync(fd).isFile();
  } finally {
    if (!isFile) closeSync(fd);
  }
  if (!isFile) throw notAFile(file);
  return fd;
}

export async function readBundleFile(file: string): Promise<Buffer>;
export async function readBundleFile(file: string, encoding: "utf8"): Promise<string>;
export async function readBundleFile(file: string, encoding?: "utf8"): Promise<Buffer | string> {
  const handle = await openBundleFile(file);
  try {
    return encoding ? await handle.readFile({ encoding }) : await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Every entry under a bundle's folder, the folder itself included: the first link found is refused (an export or a publication carries no link's target), and a FIFO or a device (nothing to carry, and a read of it would block). */
export async function refuseLinksWithin(dir: string): Promise<void> {
  if (!realFolder(dir)) return;
  const entries: Dirent[] = await fs.readdir(dir, { withFileTypes: true });
  for (const e of entries) {
    const at = path.join(dir, e.name);
    if (e.isSymbolicLink()) throw refused(at);
    if (e.isDirectory()) await refuseLinksWithin(at);
    else if (!e.isFile()) throw notAFile(at);
  }
}
