/**
 * The sandbox's only way out: it has a network of its own (loopback only), and a forwarder inside
 * (INNER_FORWARDER) passes each connection to a unix socket that nudge serves here, outside. This
 * gate sends a plain connection to the Messages API's host and port, and honours an HTTP CONNECT
 * only for the API or a host the user named (--sandbox-net): an https API is reached through
 * HTTPS_PROXY, end to end encrypted, without nudge seeing the traffic.
 */
import net from "node:net";
import { UserError } from "../../base/errors.js";

export interface HostPort {
  host: string;
  port: number;
}

/** Where the forwarder listens inside the sandbox (a network namespace of its own: any port is free). */
export const INNER_PORT = 8119;
/** Where the gate's socket appears inside the sandbox. */
export const INNER_SOCKET = "/run/nudge/api.sock";

/** The Messages API's host and port, from ANTHROPIC_BASE_URL (claude's default otherwise). */
export function apiEndpoint(env: NodeJS.ProcessEnv): HostPort & { url: URL } {
  const url = parseUrl(env.ANTHROPIC_BASE_URL || "https://api.anthropic.com");
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new UserError(
      `--sandbox: ANTHROPIC_BASE_URL is not an http or https URL: ${JSON.stringify(env.ANTHROPIC_BASE_URL)}`,
      "set it to the Messages API's address, e.g. https://api.anthropic.com, or unset it",
    );
  }
  const port = url.port ? Number(url.port) : url.protocol === "http:" ? 80 : 443;
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port, url };
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

const HEAD_LIMIT = 8192;

/** Serve the gate on `socketPath` until closed. */
export function startApiGate(socketPath: string, api: HostPort, allowed: HostPort[]): Promise<net.Server> {
  const allows = (t: HostPort) =>
    [api, ...allowed].some((a) => a.port === t.port && a.host.toLowerCase() === t.host.toLowerCase());
  const server = net.createServer((inner) => {
    inner.on("error", () => inner.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const start = head.subarray(0, 8).toString("latin1");
      if (start.length < 8 && "CONNECT ".startsWith(start)) return; // more to come
      if (start !== "CONNECT ") return open(api, head, false);
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) {
        if (head.length > HEAD_LIMIT) inner.destroy();
        return;
      }
      const target = parseConnect(head.subarray(0, end).toString("latin1"));
      if (!target || !allows(target)) {
        inner.removeListener("data", onData);
        inner.end(
          "HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\nnudge --sandbox: this host is not allowed (name it with --sandbox-net host:port)\n",
        );
        return;
      }
      open(target, head.subarray(end + 4), true);
    };
    const open = (to: HostPort, first: Buffer, tunnel: boolean) => {
      inner.removeListener("data", onData);
      inner.pause();
      const outer = net.connect(to.port, to.host);
      outer.on("error", () => {
        if (tunnel && !inner.destroyed) inner.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
        else inner.destroy();
      });
      inner.on("close", () => outer.destroy());
      outer.on("close", () => inner.destroy());
      outer.once("connect", () => {
        if (tunnel) inner.write("HTTP/1.1 200 Connection established\r\n\r\n");
        if (first.length > 0) outer.write(first);
        inner.pipe(outer);
        outer.pipe(inner);
        inner.resume();
      });
    };
    inner.on("data", onData);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      // Never what keeps nudge running.
      server.unref();
      resolve(server);
    });
  });
}

/** `CONNECT host:port HTTP/1.1` (an IPv6 host in brackets), or null. */
function parseConnect(head: string): HostPort | null {
  const m = /^CONNECT (\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5}) HTTP\/1\.[01]\r?(\n|$)/.exec(head);
  if (!m) return null;
  const port = Number(m[2]);
  return port >= 1 && port <= 65535 ? { host: m[1]!.replace(/^\[|\]$/g, ""), port } : null;
}

/**
 * Run inside the sandbox by `node -e`, before claude: listens on 127.0.0.1:INNER_PORT, passes each
 * connection to the gate's socket, and says "ready" on stdout once it listens.
 */
export const INNER_FORWARDER = `
const net = require("net");
const server = net.createServer((c) => {
  const u = net.connect(${JSON.stringify(INNER_SOCKET)});
  c.on("error", () => u.destroy()); u.on("error", () => c.destroy());
  c.on("close", () => u.destroy()); u.on("close", () => c.destroy());
  c.pipe(u); u.pipe(c);
});
server.listen(${INNER_PORT}, "127.0.0.1", () => process.stdout.write("ready\\n"));
`;
