/**
 * The inflated bytes of a gzip file, never more than a cap the caller moves as it learns what to
 * expect: a decompression bomb is stopped once it passes the cap, not after it has been inflated.
 * A tar that is not compressed (a browser that gunzipped the download leaves `.tar`) is read as
 * it is, under the same cap.
 */
import { createReadStream, promises as fs } from "node:fs";
import { createGunzip } from "node:zlib";
import { Refusal, formatBytes } from "./limits.js";

/** Small reads: one read inflates to at most ~4 MiB (gzip's best ratio is about 1000:1) before the cap is checked again. */
const READ_SIZE = 4 * 1024;

export async function* inflate(file: string, cap: () => number): AsyncGenerator<Buffer> {
  if (await isPlainTar(file)) {
    yield* capped(createReadStream(file, { highWaterMark: READ_SIZE }), cap);
    return;
  }
  const input = createReadStream(file, { highWaterMark: READ_SIZE });
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  input.on("error", (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  let total = 0;
  try {
    for await (const chunk of gunzip) {
      total += (chunk as Buffer).length;
      if (total > cap())
        throw new Refusal(
          `it inflates to more than ${formatBytes(cap())}, more than its index accounts for (a decompression bomb?)`,
        );
      yield chunk as Buffer;
    }
  } catch (error) {
    throw gzipRefusal(error);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

/** No gzip magic, and a POSIX tar header's "ustar" where it belongs. */
async function isPlainTar(file: string): Promise<boolean> {
  const handle = await fs.open(file, "r").catch(() => null);
  if (!handle) return false; // the gzip path reports why it cannot be read
  try {
    const head = Buffer.alloc(263);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return (
      bytesRead === head.length &&
      !(head[0] === 0x1f && head[1] === 0x8b) &&
      head.subarray(257, 262).toString("latin1") === "ustar"
    );
  } finally {
    await handle.close();
  }
}

async function* capped(input: AsyncIterable<unknown>, cap: () => number): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of input) {
    total += (chunk as Buffer).length;
    if (total > cap()) throw new Refusal(`it holds more than ${formatBytes(cap())}, more than its index accounts for`);
    yield chunk as Buffer;
  }
}

function gzipRefusal(error: unknown): unknown {
  if (error instanceof Refusal) return error;
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === "ENOENT" || code === "EISDIR" || code === "EACCES") return error;
  if (code === "Z_DATA_ERROR" && /incorrect header check/.test(message)) return new Refusal("it is not a gzip file");
  if (code === "Z_BUF_ERROR" || /unexpected end of file/.test(message))
    return new Refusal("it is truncated (the gzip stream ends early)");
  if (typeof code === "string" && code.startsWith("Z_")) return new Refusal(`its gzip data is damaged (${message})`);
  return error;
}
