/** GET /api/downloads/<token>: an export made for the page, sent once, then removed. */
import { createReadStream, promises as fs } from "node:fs";
import { pipeline } from "node:stream/promises";
import { HttpError } from "./http-io.js";
import type { Ctx } from "./router.js";

export async function sendDownload({ req, res, params, app }: Ctx): Promise<void> {
  // A HEAD must not use up the one download.
  if (req.method === "HEAD")
    throw new HttpError(405, "a download is taken with GET, once", "follow the link the export gave");
  const d = app.downloads.take(params.token!);
  if (!d)
    throw new HttpError(404, "no such download (each is taken once, within ten minutes)", "export the session again");
  try {
    const { size } = await fs.stat(d.file);
    res.writeHead(200, {
      "Content-Type": "application/gzip",
      "Content-Length": size,
      // The name is nudge's own (nudge-<id>.tar.gz: hex), never a session's text.
      "Content-Disposition": `attachment; filename="${d.name}"`,
      "Cache-Control": "no-store",
    });
    await pipeline(createReadStream(d.file), res);
  } finally {
    await d.work.finish();
  }
}
