/**
 * A bundle's copy of claude's transcript, read as any gzip reader would (zlib's gunzip, not nudge's
 * own reader): `claude/<id>.jsonl.gz`, every member in a row. The plain name must be gone.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";

export function transcriptCopy(bundleDir: string, name: string): Buffer {
  if (existsSync(path.join(bundleDir, name)))
    throw new Error(`${name} is kept plain in ${bundleDir}; nudge keeps it compressed (${name}.gz)`);
  return gunzipSync(readFileSync(path.join(bundleDir, `${name}.gz`)));
}
