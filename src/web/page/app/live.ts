/**
 * The server's event streams (SSE): EventSource reconnects by itself and sends Last-Event-ID, and
 * the server answers a reconnect with a `session` event, so the page refetches what it lacks.
 * Events of a type the page does not know, or with data it cannot read, are ignored.
 *
 * How the streams fare is the page's connection, told to whoever listens (the banner): `open`;
 * `reconnecting` while the server does not answer (stopped, the laptop asleep: EventSource keeps
 * trying); `refused` when it answered but not with the stream (a 403: the login this page holds is
 * not the running server's; EventSource then gives up for good, and only a new address helps).
 */
export type Connection = "open" | "reconnecting" | "refused";

const listeners = new Set<(connection: Connection) => void>();
let connection: Connection = "open";

function report(next: Connection): void {
  if (next === connection || connection === "refused") return;
  connection = next;
  for (const listener of listeners) listener(next);
}

/** Calls back on every change of the page's connection; returns an unsubscribe. */
export function onConnection(listener: (connection: Connection) => void): () => void {
  listeners.add(listener);
  listener(connection);
  return () => listeners.delete(listener);
}

export function listen(url: string, handlers: Record<string, (data: Record<string, unknown>) => void>): () => void {
  if (typeof EventSource === "undefined") return () => {};
  const source = new EventSource(url);
  let opened = false;
  source.addEventListener("open", () => {
    report("open");
    // Back after a drop (a server restart, a laptop waking): what was missed or failed meanwhile
    // is fetched again by the `reopen` handler, whether or not the server sends an event.
    if (opened) handlers.reopen?.({});
    opened = true;
  });
  source.addEventListener("error", () => {
    if (source.readyState !== EventSource.CLOSED) return report("reconnecting");
    // Not there (any more): whoever listens looks again (a session gone between its fetch and its stream).
    void whyRefused(url).then((c) => (c ? report(c) : handlers.gone?.({})));
  });
  for (const [type, handle] of Object.entries(handlers)) {
    if (type === "reopen" || type === "gone") continue;
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

/**
 * EventSource says only that the server refused the stream, not why. Asked again with fetch: a 403
 * is this page's login refused; a 404 is a session that is not there (the page says so itself),
 * not a lost login. A HEAD: the server answers a stream's HEAD with its headers alone.
 */
async function whyRefused(url: string): Promise<Connection | null> {
  try {
    const answer = await fetch(url, { method: "HEAD" });
    return answer.status === 404 || answer.status === 410 ? null : "refused";
  } catch {
    return "refused";
  }
}
