/**
 * The whole of a line a view showed only the start of (a clipped text's `whole`), read from the
 * session's stream a piece at a time and masked as the page is: a 50 MB tool input is sent in
 * pieces of 64 KB, and never held, parsed or JSON-encoded whole.
 */
import { UserError } from "../base/errors.js";
import { streamSize } from "../store/conversation-pieces.js";
import { streamRange } from "../store/stream-range.js";
import type { Store } from "../store/store.js";
import { resolveSessionKept } from "./manifest-cache.js";

/** Masked a piece of about this many bytes at a time: each detection holds the server a few ms. */
const MASK_PIECE = 64 << 10;
/** A piece is cut after a space or a newline found this near its end, so a secret (no spaces) is never split between two. */
const CUT_SEARCH = 4 << 10;

/** Bytes [at, at + bytes) of the session's stream, masked; refused when the range is not within it. */
export async function wholeLine(store: Store, id: string, at: number, bytes: number): Promise<AsyncGenerator<Buffer>> {
  const s = await resolveSessionKept(store, id);
  const size = await streamSize(s.dir);
  if (at + bytes > size)
    throw new UserError(
      `the session's conversation holds ${size} bytes, not ${at + bytes}`,
      "follow the download link the page shows",
    );
  return masked(streamRange(s.dir, at, at + bytes));
}

async function* masked(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const [{ detectSecrets }, { maskText }] = await Promise.all([
    import("../secrets/secret-detect.js"),
    import("../secrets/secrets.js"),
  ]);
  const mask = async (piece: Buffer) => {
    const text = piece.toString("utf8");
    const spans = await detectSecrets(text);
    // Nothing found: the bytes as recorded (text that is not UTF-8 included).
    return spans.length === 0 ? piece : Buffer.from(maskText(text, spans));
  };
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of chunks) {
    let all: Buffer = rest.length ? Buffer.concat([rest, chunk]) : chunk;
    while (all.length >= MASK_PIECE) {
      const cut = cutPoint(all, MASK_PIECE);
      yield await mask(all.subarray(0, cut));
      all = all.subarray(cut);
      // Detection resolves without I/O: let the server answer other requests between two pieces.
      await new Promise((resolve) => setImmediate(resolve));
    }
    rest = all;
  }
  if (rest.length > 0) yield await mask(rest);
}

/** After the last space or newline shortly before `near`; else at `near`, moved back to a character's start. */
function cutPoint(bytes: Buffer, near: number): number {
  for (let i = near - 1; i >= near - CUT_SEARCH; i--) if (bytes[i] === 0x20 || bytes[i] === 0x0a) return i + 1;
  let cut = near;
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return cut;
}
