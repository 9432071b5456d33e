/**
 * The inflated bytes of a gzip file, never more than a cap the caller moves as it learns what to
 * expect: a decompression bomb is stopped once it passes the cap, not after it has been inflated.
 */
import { createReadStream } from "node:fs";
import { createGunzip } from "node:zlib";
import { Refusal, formatBytes } from "./limits.js";

/** Small reads: one read inflates to at most ~4 MiB (gzip's best ratio is about 1000:1) before the cap is checked again. */
const READ_SIZE = 4 * 1024;

export async function* inflate(file: string, cap: () => number): AsyncGenerator<Buffer> {
  const input = createReadStream(file, { highWaterMark: READ_SIZE });
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  input.on("error", (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  let total = 0;
  try {
    for await (const chunk of gunzip) {
      total += (chunk as Buffer).length;
      if (total > cap()) throw new Refusal(`it inflates to more than ${formatBytes(cap())}, more than its index accounts for (a decompression bomb?)`);
      yield chunk as Buffer;
    }
  } catch (error) {
    throw gzipRefusal(error);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

function gzipRefusal(error: unknown): unknown {
  if (error instanceof Refusal) return error;
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === "ENOENT" || code === "EISDIR" || code === "EACCES") return error;
  if (code === "Z_DATA_ERROR" && /incorrect header check/.test(message)) return new Refusal("it is not a gzip file");
  if (code === "Z_BUF_ERROR" || /unexpected end of file/.test(message)) return new Refusal("it is truncated (the gzip stream ends early)");
  if (typeof code === "string" && code.startsWith("Z_")) return new Refusal(`its gzip data is damaged (${message})`);
  return error;
}
