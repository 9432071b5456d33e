import { promises as fs, statSync } from "node:fs";

/** Is there anything at this path (a file, a folder, a symlink — even a dangling one)? */
export async function pathExists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}

/** Is this path a folder (following a symlink), false when it is missing or unreadable? */
export function isDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
