/**
 * Who may talk to `nudge web`, checked on every request before any route runs (as Jupyter's
 * server does it): the `Host` header must name this server (a DNS-rebinding page reaches us under
 * its own name), a request from another origin is refused, the random token must come with the
 * request (once in the first URL, then as an HttpOnly SameSite=Strict cookie), and a state change
 * is a POST carrying the CSRF token the page read from its own document. Secrets are compared in
 * constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import os from "node:os";

/**
 * The cookie is named after the port: browsers keep cookies per host name, not per port, so two
 * `nudge web` servers on one machine would otherwise log each other out.
 */
const cookieName = (port: number) => `nudge_token_${port}`;
const CSRF_HEADER = "x-nudge-csrf";

/** No inline script, no remote origin: a session's text that slips into the DOM cannot run. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export interface Guard {
  /** In the first URL; then the cookie. */
  token: string;
  /** In the page's meta tag; sent back in x-nudge-csrf on every POST. */
  csrf: string;
  /** Host header values this server answers to ("127.0.0.1:8080"). */
  hosts: Set<string>;
  /** Origins allowed to send requests ("http://127.0.0.1:8080"). */
  origins: Set<string>;
  /** The token's cookie (see cookieName). */
  cookie: string;
}

const secret = () => randomBytes(32).toString("base64url");

/** The secrets (those a restart kept, else new ones) and the names the server answers to on `port`. */
export function makeGuard(host: string, port: number, kept?: { token: string; csrf: string }): Guard {
  const bracket = (name: string) => (name.includes(":") ? `[${name}]` : name);
  // Listening on every address (0.0.0.0, ::): a browser on another machine names one of this
  // machine's own addresses. Addresses only, never a name: a DNS-rebinding page comes by a name.
  const everywhere = host === "0.0.0.0" || host === "::" ? machineAddresses() : [];
  const names = new Set(["127.0.0.1", "localhost", "[::1]", bracket(host), ...everywhere.map(bracket)]);
  const hosts = new Set([...names].map((name) => `${name}:${port}`));
  return {
    token: kept?.token ?? secret(),
    csrf: kept?.csrf ?? secret(),
    hosts,
    origins: new Set([...hosts].map((h) => `http://${h}`)),
    cookie: cookieName(port),
  };
}

/** This machine's addresses, every interface's. */
export function machineAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((list) =>
    (list ?? []).map((a) => a.address.replace(/%.*$/, "")),
  );
}

/** Equal without telling by its timing how much of a guess was right (digests: same length). */
export function sameSecret(given: string | undefined | null, expected: string): boolean {
  if (typeof given !== "string") return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export type Verdict =
  | { kind: "pass" }
  | { kind: "deny"; why: string; hint: string }
  /** The token came in the URL: set the cookie and send the browser to the URL without it. */
  | { kind: "login"; location: string; cookie: string };

const deny = (why: string, hint: string): Verdict => ({ kind: "deny", why, hint });
const START_HINT = "open the URL `nudge web` printed (it holds the token), or start it again";

function hostHeaders(req: IncomingMessage): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === "host") count++;
  return count;
}

export function checkRequest(req: IncomingMessage, url: URL, guard: Guard): Verdict {
  // Before the token: a page on another site that rebinds its name to 127.0.0.1 learns nothing.
  if (!guard.hosts.has(req.headers.host ?? "")) return deny("this server answers only to its own address", START_HINT);
  // The address is that one Host (node keeps the first of several), in a path-only target: a second
  // Host, or a target naming its own authority (`GET http://other/…`), says another address (RFC 9112 §3.2).
  if (hostHeaders(req) !== 1 || !req.url?.startsWith("/"))
    return deny("a request that names another address", START_HINT);
  const origin = req.headers.origin;
  if (origin !== undefined && !guard.origins.has(origin))
    return deny("a request from another origin", "use the page this server serves");
  // Fetch metadata, where the browser sends it: a request another site's page started.
  const site = req.headers["sec-fetch-site"];
  if (site === "cross-site" || site === "same-site")
    return deny("a request started by another site", "use the page this server serves");
  const fromUrl = url.searchParams.get("token");
  if (fromUrl !== null) {
    if (!sameSecret(fromUrl, guard.token)) return deny("wrong token", START_HINT);
    if (req.method === "GET" || req.method === "HEAD") {
      url.searchParams.delete("token");
      return {
        kind: "login",
        location: url.pathname + url.search,
        cookie: `${guard.cookie}=${guard.token}; HttpOnly; SameSite=Strict; Path=/`,
      };
    }
  } else if (!sameSecret(cookieOf(req, guard.cookie), guard.token)) {
    return deny("no valid token", START_HINT);
  }
  if (req.method === "POST") {
    // Browsers send Origin on every POST: one without it did not come from our page.
    if (origin === undefined) return deny("a POST without an Origin header", "use the page this server serves");
    const csrf = req.headers[CSRF_HEADER];
    if (!sameSecret(Array.isArray(csrf) ? undefined : csrf, guard.csrf))
      return deny(`a POST without the right ${CSRF_HEADER} header`, "reload the page and try again");
  }
  return { kind: "pass" };
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** On every response, errors and redirects included. */
export function securityHeaders(res: ServerResponse): void {
  res.setHeader("Content-Security-Policy", CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
  res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
  res.setHeader("X-Frame-Options", "DENY");
}
