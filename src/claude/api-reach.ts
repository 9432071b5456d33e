/**
 * Why claude cannot reach the Messages API. claude's `api_retry` events say only `"error":
 * "unknown"` when no HTTP answer came (measured on 2.1.329: a refused connection, a name that does
 * not resolve); the reason is in its last message, three minutes later. One TCP connection to the
 * address claude uses (ANTHROPIC_BASE_URL, else api.anthropic.com) finds it at the first retry.
 */
import net from "node:net";

const DEFAULT_API = "https://api.anthropic.com";

/** "cannot connect to 127.0.0.1:9 (ECONNREFUSED)", or null when the address takes a connection (the cause is elsewhere). */
export async function whyUnreachable(env: NodeJS.ProcessEnv, timeoutMs = 5_000): Promise<string | null> {
  const proxy = env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy;
  // Through a proxy a direct connection proves nothing either way.
  if (proxy) return null;
  const base = env.ANTHROPIC_BASE_URL || DEFAULT_API;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return `ANTHROPIC_BASE_URL is not a URL: ${base}`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || (url.protocol === "http:" ? 80 : 443));
  const where = `${url.hostname}:${port}${env.ANTHROPIC_BASE_URL ? " (ANTHROPIC_BASE_URL)" : ""}`;
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (why: string | null) => {
      socket.destroy();
      resolve(why);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer from ${where} within ${timeoutMs / 1000}s`));
    socket.once("connect", () => done(null));
    socket.once("error", (error: NodeJS.ErrnoException) =>
      done(`cannot connect to ${where}: ${error.code ?? error.message}`),
    );
  });
}
