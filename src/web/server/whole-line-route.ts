/**
 * GET /api/sessions/:id/raw?at=<byte>&bytes=<n>: the whole of a line the page shows the start of
 * (a clipped text's `whole`), as a download, streamed a piece at a time and masked as the page is.
 * Behind the same token, Host and Origin checks as every route (security.ts); it changes nothing.
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import * as z from "../../base/zod.js";
import { resolveId } from "../../store/store.js";
import { parseInput } from "./http-io.js";
import type { Ctx } from "./router.js";

const Offset = z.string().check(z.regex(/^\d{1,15}$/, "a byte offset (digits)"));
const RawQuery = z.object({ at: Offset, bytes: Offset });

export async function sendWholeLine(ctx: Ctx): Promise<void> {
  const id = await resolveId(ctx.app.store, ctx.params.id!);
  const p = parseInput(RawQuery, Object.fromEntries(ctx.url.searchParams), "query");
  const { wholeLine } = await import("../../view/line-download.js");
  const chunks = await wholeLine(ctx.app.store, id, Number(p.at), Number(p.bytes));
  ctx.res.writeHead(200, {
    "Content-Type": "application/octet-stream",
    // The name is nudge's own (the session's hex id and a number), never a session's text.
    "Content-Disposition": `attachment; filename="nudge-${id}-${p.at}.json"`,
    "Cache-Control": "no-store",
  });
  if (ctx.req.method === "HEAD") {
    await chunks.return(undefined);
    return void ctx.res.end();
  }
  await pipeline(Readable.from(chunks), ctx.res);
}
