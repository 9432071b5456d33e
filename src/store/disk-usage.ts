import { promises as fs } from "node:fs";
import path from "node:path";

/** The bytes a file or folder holds (file sizes, symlinks not followed); 0 when it is gone. */
export async function diskUsage(target: string): Promise<number> {
  const stat = await fs.lstat(target).catch(() => null);
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.size;
  const entries = await fs.readdir(target).catch(() => [] as string[]);
  let total = 0;
  for (const name of entries) total += await diskUsage(path.join(target, name));
  return total;
}
