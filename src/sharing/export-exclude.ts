/**
 * An export written inside the work tree would be recorded by the next turn as "your edits" (a
 * snapshot takes every file git does not ignore), then travel inside the next export with
 * everything it holds, unmasked with --no-redact. So an export that lands there is named in the
 * repository's `.git/info/exclude`, which nudge's snapshots and `git status` both honour and
 * which is never committed or shared.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import * as git from "../snapshot/git.js";
import { appendedText } from "../store/git-exclude-line.js";

/** Keep `file` out of the snapshots if it lies in the work tree at `root`. Returns the exclude file written to, or null. */
export async function excludeExport(root: string, file: string): Promise<string | null> {
  const rel = path.relative(root, file);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return null;
  const posix = rel.split(path.sep).join("/");
  if (await git.isIgnored(root, posix)) return null;
  const [exclude] = await git.ignoreFiles(root);
  await fs.mkdir(path.dirname(exclude!), { recursive: true });
  const before = await fs.readFile(exclude!, "utf8").catch(() => "");
  // Anchored at the root, wildcards and leading specials escaped: exactly this file.
  const line = "/" + posix.replace(/[*?[\]\\!#]/g, (c) => `\\${c}`);
  await fs.appendFile(exclude!, appendedText(before, `# nudge session export\n${line}\n`));
  return exclude!;
}
