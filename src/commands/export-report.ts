/** How `session export` (tarball or HTML) tells what it found and where it wrote. */
import path from "node:path";

// The secrets found, by kind: the same words the tarball export and the web page use.
export { describeSecrets } from "../sharing/export-describe.js";

/** A path relative to here when it is inside, else as it is. */
export function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}
