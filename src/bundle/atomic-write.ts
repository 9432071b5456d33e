import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";

/**
 * Write a whole file so that a reader (or a crash at any instant) sees either the old content or
 * the new, never a mix: write a temp file beside it, fsync it, rename it over, fsync the folder.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const handle = await fs.open(temp, "wx");
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncDir(dir);
}

/**
 * `mkdir -p`, one folder at a time. Node's own recursive mkdir spins forever where a folder
 * cannot be made under an existing one (under /proc, say: ENOENT, then EEXIST for the parent,
 * again and again); this fails with the first folder it cannot make, or a file in the way.
 */
export async function ensureDir(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const stat = await fs.stat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    if (stat?.isDirectory()) break;
    if (stat) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${at}'`), { code: "ENOTDIR", syscall: "mkdir", path: at });
    missing.push(at);
    if (path.dirname(at) === at) break;
  }
  for (const folder of missing.reverse()) {
    await fs.mkdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error; // made meanwhile by another process: fine
    });
  }
}

export async function copyFileAtomic(from: string, to: string): Promise<void> {
  await writeFileAtomic(to, await fs.readFile(from));
}

/** fsync a directory so a rename in it survives power loss; not every platform allows it. */
async function syncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, "r");
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    await handle?.close();
  }
}
