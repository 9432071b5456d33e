/**
 * One Server-Sent Events stream. Each event has an id, counting up from the one the browser
 * last saw (EventSource sends it back as Last-Event-ID when it reconnects), so ids keep rising
 * across a reconnect or a server restart; a comment every 15 s keeps proxies and sleeping
 * laptops from dropping an idle stream unnoticed. The server closes every stream when it stops.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { LiveEvent } from "./watchers.js";
import type { Ctx } from "./router.js";

const PING_MS = 15_000;

export interface Stream {
  send(e: LiveEvent): void;
  close(): void;
}

export function openStream(
  req: IncomingMessage,
  res: ServerResponse,
  streams: Set<Stream>,
  onClose: () => void,
): { stream: Stream; resumed: boolean } {
  const last = Number(req.headers["last-event-id"]);
  const resumed = req.headers["last-event-id"] !== undefined;
  let id = Number.isSafeInteger(last) && last >= 0 ? last : 0;
  res.writeHead(200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-store",
    Connection: "keep-alive",
    "X-Accel-Buffering": "no",
  });
  // How soon EventSource reconnects after the stream drops (a server restart, a laptop waking).
  res.write("retry: 1000\n\n");
  const ping = setInterval(() => res.write(": ping\n\n"), PING_MS);
  let open = true;
  const stream: Stream = {
    send(e) {
      if (open) res.write(`id: ${++id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
    },
    close() {
      if (!open) return;
      open = false;
      clearInterval(ping);
      streams.delete(stream);
      onClose();
      res.end();
    },
  };
  streams.add(stream);
  req.on("close", () => stream.close());
  res.on("error", () => stream.close());
  return { stream, resumed };
}

/** A HEAD of a stream: its headers, and no stream (how the page asks why a stream failed). */
export function headOnly(ctx: Ctx): boolean {
  if (ctx.req.method !== "HEAD") return false;
  ctx.res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store" });
  ctx.res.end();
  return true;
}
