/**
 * Where `session export -o` writes, checked before any work: a folder that does not exist is
 * named (not the temp file the writer would have failed on), and a file already there is
 * replaced only with --force (on a terminal, after asking).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { confirm } from "./confirm.js";

export async function checkExportTarget(given: string | undefined, out: string, force: boolean): Promise<void> {
  const folder = given !== undefined && /[/\\]$/.test(given) ? path.resolve(given) : path.dirname(out);
  const there = await fs.stat(folder).catch(() => null);
  if (!there?.isDirectory()) {
    throw new UserError(
      `the folder ${folder} ${there ? "is not a folder" : "does not exist"}; nothing was written`,
      `make it first (mkdir -p ${folder}), or give -o a folder that exists`,
    );
  }
  const file = await fs.lstat(out).catch(() => null);
  if (!file?.isFile() || force) return;
  if (!process.stdin.isTTY)
    throw new UserError(
      `${out} already exists; nothing was written`,
      "pass --force to replace it, or give -o another name",
    );
  await confirm(`${out} already exists: replace it?`, false);
}

/** The export is written beside its place and renamed over it: a pipe or a device there would be replaced by a file. */
export async function refuseSpecialFile(out: string): Promise<void> {
  const there = await fs.stat(out).catch(() => null);
  if (there && !there.isFile()) {
    throw new UserError(
      `${out} is not a regular file (a pipe, a device or a socket); nothing was written`,
      "give -o a file path or a folder; to send the archive elsewhere, export to a file and copy it",
    );
  }
}

export async function isFolder(p: string): Promise<boolean> {
  return (await fs.stat(p).catch(() => null))?.isDirectory() ?? false;
}

/** A path relative to here when it is inside, else as it is. */
export function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}
