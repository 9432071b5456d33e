/**
 * The server's event streams (SSE): EventSource reconnects by itself and sends Last-Event-ID, and
 * the server answers a reconnect with a `session` event, so the page refetches what it lacks.
 * Events of a type the page does not know, or with data it cannot read, are ignored.
 */
export function listen(url: string, handlers: Record<string, (data: Record<string, unknown>) => void>): () => void {
  if (typeof EventSource === "undefined") return () => {};
  const source = new EventSource(url);
  for (const [type, handle] of Object.entries(handlers)) {
    source.addEventListener(type, (event) => {
      let data: unknown;
      try {
        data = JSON.parse((event as MessageEvent<string>).data);
      } catch {
        return;
      }
      if (data && typeof data === "object") handle(data as Record<string, unknown>);
    });
  }
  return () => source.close();
}
