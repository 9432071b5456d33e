/**
 * The server's event streams (SSE): EventSource reconnects by itself and sends Last-Event-ID, and
 * the server answers a reconnect with a `session` event, so the page refetches what it lacks.
 * Events of a type the page does not know, or with data it cannot read, are ignored.
 *
 * How the streams fare is the page's connection, told to whoever listens (the banner): `open`;
 * `reconnecting` while the server does not answer (stopped, the laptop asleep); `refused` when it
 * answers that the login this page holds is not the running server's (a 403: only a new address helps).
 */
export type Connection = "open" | "reconnecting" | "refused";

const listeners = new Set<(connection: Connection) => void>();
let connection: Connection = "open";

function report(next: Connection): void {
  // Refused stays until a stream is open again (its login taken after all), never back to "reconnecting".
  if (next === connection || (connection === "refused" && next !== "open")) return;
  connection = next;
  for (const listener of listeners) listener(next);
}

/** Calls back on every change of the page's connection; returns an unsubscribe. */
export function onConnection(listener: (connection: Connection) => void): () => void {
  listeners.add(listener);
  listener(connection);
  return () => listeners.delete(listener);
}

/** While a stream is down, the page asks the server itself this soon whether it is back, then less often. */
const PROBE_MS = 3000;
const PROBE_MAX_MS = 10_000;

/**
 * The browser's own retries are not trusted alone: a retry can stall (seen under load, the banner
 * up for good while the server answered) and a stream refused once (a 503 while it starts) is given
 * up for good. So while the stream is down the page asks the server with a HEAD, and when it
 * answers, opens a fresh stream (the `reopen` handler refetches what was missed).
 */
export function listen(url: string, handlers: Record<string, (data: Record<string, unknown>) => void>): () => void {
  if (typeof EventSource === "undefined") return () => {};
  let source: EventSource;
  let opened = false;
  let stopped = false;
  let probe: ReturnType<typeof setTimeout> | undefined;
  let probeMs = PROBE_MS;
  let askedAtOnce = false;

  const watch = () => {
    if (probe === undefined && !stopped) probe = setTimeout(() => void check(), probeMs);
  };
  const check = async () => {
    probe = undefined;
    const status = await headStatus(url);
    if (stopped || source.readyState === EventSource.OPEN) return;
    if (status === 401 || status === 403) {
      source.close();
      report("refused");
      // Still asked, seldom: another server on the port refuses too, and nudge web may come back with this login.
      probeMs = PROBE_MAX_MS;
      return watch();
    }
    if (status === 404 || status === 410) {
      source.close();
      // Not there (any more): whoever listens looks again (a session gone between its fetch and its
      // stream). Asked after all the same: another server may have answered on the port meanwhile.
      if (handlers.gone) handlers.gone({});
      else report("reconnecting");
      probeMs = Math.min(probeMs * 2, PROBE_MAX_MS);
      return watch();
    }
    if (status >= 200 && status < 300) {
      source.close();
      probeMs = Math.min(probeMs * 2, PROBE_MAX_MS);
      connect();
    }
    report("reconnecting");
    watch();
  };
  const connect = () => {
    source = new EventSource(url);
    source.addEventListener("open", () => {
      clearTimeout(probe);
      probe = undefined;
      probeMs = PROBE_MS;
      askedAtOnce = false;
      report("open");
      // Back after a drop (a server restart, a laptop waking): what was missed or failed meanwhile
      // is fetched again by the `reopen` handler, whether or not the server sends an event.
      if (opened) handlers.reopen?.({});
      opened = true;
    });
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) {
        report("reconnecting");
        return watch();
      }
      // Given up by the browser: why is asked at once the first time (a refused login is said
      // promptly), then after the probe's delay (a stream that keeps failing is not asked for in a loop).
      if (askedAtOnce) return watch();
      askedAtOnce = true;
      clearTimeout(probe);
      probe = undefined;
      void check();
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
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(probe);
    source.close();
  };
}

/**
 * What the server answers a stream's HEAD (its headers alone), 0 if it does not answer. EventSource
 * says only that a stream failed, not why: a 403 is this page's login refused; a 404 a session that
 * is not there (the page says so itself), not a lost login.
 */
async function headStatus(url: string): Promise<number> {
  try {
    // Bounded: a probe that never got an answer would leave none after it, and the page down for good.
    const signal = AbortSignal.timeout(PROBE_MS);
    return (await fetch(url, { method: "HEAD", credentials: "same-origin", cache: "no-store", signal })).status;
  } catch {
    return 0;
  }
}
