import { promises as fs } from "node:fs";

/** Is there anything at this path (a file, a folder, a symlink — even a dangling one)? */
export async function pathExists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}
